package io.engram.jobs.serde;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The field encodings the serializers share: strings of any length (null allowed), instants, lists, vectors, and
 * numbers and vectors that may be absent.
 */
public final class Layout {

    private Layout() {
    }

    public static void writeString(String value, DataOutputView out) throws IOException {
        StringValue.writeString(value, out);
    }

    public static String readString(DataInputView in) throws IOException {
        return StringValue.readString(in);
    }

    public static void writeInstant(Instant value, DataOutputView out) throws IOException {
        out.writeLong(value.getEpochSecond());
        out.writeInt(value.getNano());
    }

    public static Instant readInstant(DataInputView in) throws IOException {
        return Instant.ofEpochSecond(in.readLong(), in.readInt());
    }

    public static void writeStrings(List<String> values, DataOutputView out) throws IOException {
        out.writeInt(values.size());
        for (String v : values) {
            writeString(v, out);
        }
    }

    public static List<String> readStrings(DataInputView in) throws IOException {
        int n = in.readInt();
        List<String> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(readString(in));
        }
        return values;
    }

    public static void writeVector(float[] vector, DataOutputView out) throws IOException {
        out.writeInt(vector.length);
        for (float v : vector) {
            out.writeFloat(v);
        }
    }

    public static float[] readVector(DataInputView in) throws IOException {
        return readFloats(in.readInt(), in);
    }

    private static float[] readFloats(int length, DataInputView in) throws IOException {
        float[] vector = new float[length];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = in.readFloat();
        }
        return vector;
    }

    /** A vector or none: its length, -1 for none, then its values. */
    public static void writeOptionalVector(float[] vector, DataOutputView out) throws IOException {
        if (vector == null) {
            out.writeInt(-1);
        } else {
            writeVector(vector, out);
        }
    }

    public static float[] readOptionalVector(DataInputView in) throws IOException {
        int length = in.readInt();
        return length < 0 ? null : readFloats(length, in);
    }

    /** A number or none: whether it is present, then its value. */
    public static void writeOptionalInt(Integer value, DataOutputView out) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeInt(value);
        }
    }

    public static Integer readOptionalInt(DataInputView in) throws IOException {
        return in.readBoolean() ? in.readInt() : null;
    }

    public static void writeOptionalLong(Long value, DataOutputView out) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeLong(value);
        }
    }

    public static Long readOptionalLong(DataInputView in) throws IOException {
        return in.readBoolean() ? in.readLong() : null;
    }

    public static void writeOptionalDouble(Double value, DataOutputView out) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeDouble(value);
        }
    }

    public static Double readOptionalDouble(DataInputView in) throws IOException {
        return in.readBoolean() ? in.readDouble() : null;
    }
}
