package io.engram.jobs.store;

import io.engram.jobs.serde.LayoutSerializer;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** A change from compaction the writer holds until the watermark passes {@code at}, the event time it was made at. */
record HeldChange(long at, StoreChange change) {

    /** The writer's keyed state of held changes: the time, then the change's own layout. */
    static final class Serializer extends LayoutSerializer<HeldChange> {
        private static final long serialVersionUID = 1L;
        static final Serializer INSTANCE = new Serializer();

        private final StoreChangeSerializer changes;

        Serializer() {
            this(StoreChangeSerializer.INSTANCE);
        }

        private Serializer(StoreChangeSerializer changes) {
            this.changes = changes;
        }

        @Override
        protected int layoutVersion() {
            return changes.layoutVersion();
        }

        @Override
        protected Serializer readingLayout(int version) {
            StoreChangeSerializer earlier = changes.readingLayout(version);
            return earlier == null ? null : new Serializer(earlier);
        }

        @Override
        public void serialize(HeldChange held, DataOutputView out) throws IOException {
            out.writeLong(held.at());
            changes.serialize(held.change(), out);
        }

        @Override
        public HeldChange deserialize(DataInputView in) throws IOException {
            return new HeldChange(in.readLong(), changes.deserialize(in));
        }
    }
}
