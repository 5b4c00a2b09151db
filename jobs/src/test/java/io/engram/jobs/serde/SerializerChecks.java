package io.engram.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** What every typed seam's serializer must do: write and read a value back, and restore from its snapshot. */
public final class SerializerChecks {

    private SerializerChecks() {
    }

    /** The value written and read back, after checking the snapshot restores the same serializer. */
    public static <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(value, out);
        T read = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));

        TypeSerializerSnapshot<T> restored = throughASavepoint(serializer);
        assertThat(restored.restoreSerializer()).isEqualTo(serializer);
        TypeSerializerSchemaCompatibility<T> compatibility =
                serializer.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertThat(compatibility.isCompatibleAsIs()).isTrue();
        return read;
    }

    /** The serializer's snapshot as a savepoint stores and reads it: its class by name, its version, its contents. */
    public static <T> TypeSerializerSnapshot<T> throughASavepoint(TypeSerializer<T> serializer) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        return TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(out.getCopyOfBuffer()),
                SerializerChecks.class.getClassLoader());
    }
}
