package io.engram.jobs.collapse;

import io.engram.model.collapse.StoreShape;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink state serializer of a {@link StoreShape}: the shape's own compact format (its entries; the aggregates
 * are rebuilt on read), so the state is schema-stable and needs no Kryo.
 */
final class StoreShapeSerializer extends TypeSerializer<StoreShape> {

    private static final long serialVersionUID = 1L;
    static final StoreShapeSerializer INSTANCE = new StoreShapeSerializer();

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<StoreShape> duplicate() {
        return this;
    }

    @Override
    public StoreShape createInstance() {
        return new StoreShape(0);
    }

    @Override
    public StoreShape copy(StoreShape from) {
        try {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            from.writeTo(out);
            return StoreShape.readFrom(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot copy a store shape", e);
        }
    }

    @Override
    public StoreShape copy(StoreShape from, StoreShape reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(StoreShape shape, DataOutputView target) throws IOException {
        shape.writeTo(target);
    }

    @Override
    public StoreShape deserialize(DataInputView source) throws IOException {
        return StoreShape.readFrom(source);
    }

    @Override
    public StoreShape deserialize(StoreShape reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof StoreShapeSerializer;
    }

    @Override
    public int hashCode() {
        return StoreShapeSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<StoreShape> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Format version 1: the shape's {@code writeTo} layout. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<StoreShape> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
