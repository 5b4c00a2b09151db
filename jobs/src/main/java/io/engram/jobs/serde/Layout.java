package io.engram.jobs.serde;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The field encodings the serializers share: strings of any length (null allowed), instants, lists, vectors, and any
 * field that may be absent.
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

    /** A list: its size, then each element as {@code write} writes it. */
    public static <T> void writeList(Collection<T> values, DataOutputView out, FieldWriter<T> write) throws IOException {
        out.writeInt(values.size());
        for (T value : values) {
            write.write(value);
        }
    }

    public static <T> List<T> readList(DataInputView in, FieldReader<T> read) throws IOException {
        int n = in.readInt();
        List<T> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(read.read());
        }
        return values;
    }

    public static void writeStrings(List<String> values, DataOutputView out) throws IOException {
        writeList(values, out, value -> writeString(value, out));
    }

    public static List<String> readStrings(DataInputView in) throws IOException {
        return readList(in, () -> readString(in));
    }

    public static void writeVector(float[] vector, DataOutputView out) throws IOException {
        out.writeInt(vector.length);
        for (float v : vector) {
            out.writeFloat(v);
        }
    }

    public static float[] readVector(DataInputView in) throws IOException {
        float[] vector = new float[in.readInt()];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = in.readFloat();
        }
        return vector;
    }

    /** Writes one field's value. */
    @FunctionalInterface
    public interface FieldWriter<T> {
        void write(T value) throws IOException;
    }

    /** Reads one field's value. */
    @FunctionalInterface
    public interface FieldReader<T> {
        T read() throws IOException;
    }

    /** A value or none: whether it is present, then the value as {@code write} writes it. */
    public static <T> void writeOptional(T value, DataOutputView out, FieldWriter<T> write) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            write.write(value);
        }
    }

    public static <T> T readOptional(DataInputView in, FieldReader<T> read) throws IOException {
        return in.readBoolean() ? read.read() : null;
    }
}
