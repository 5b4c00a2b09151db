package io.engram.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.junit.jupiter.api.Test;

/** A savepoint written with one layout is read back only by the same serializer and layout version. */
class LayoutSnapshotTest {

    static class Words extends LayoutSerializer<String> {
        @Override
        public void serialize(String value, DataOutputView out) throws IOException {
            Layout.writeString(value, out);
        }

        @Override
        public String deserialize(DataInputView in) throws IOException {
            return Layout.readString(in);
        }
    }

    static class WordsV2 extends Words {
        @Override
        protected int layoutVersion() {
            return 2;
        }
    }

    static class Letters extends Words {
    }

    private static TypeSerializerSnapshot<String> throughASavepoint(LayoutSerializer<String> serializer) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        return TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(out.getCopyOfBuffer()),
                LayoutSnapshotTest.class.getClassLoader());
    }

    @Test
    void theSameSerializerAndLayoutIsCompatibleAsIs() throws Exception {
        TypeSerializerSnapshot<String> old = throughASavepoint(new Words());
        assertThat(old.restoreSerializer()).isInstanceOf(Words.class).isEqualTo(new Words());
        assertThat(new Words().snapshotConfiguration().resolveSchemaCompatibility(old).isCompatibleAsIs()).isTrue();
    }

    @Test
    void anotherLayoutVersionOrSerializerIsRefusedNotMisread() throws Exception {
        TypeSerializerSnapshot<String> old = throughASavepoint(new Words());
        assertThat(new WordsV2().snapshotConfiguration().resolveSchemaCompatibility(old).isIncompatible()).isTrue();
        assertThat(new Letters().snapshotConfiguration().resolveSchemaCompatibility(old).isIncompatible()).isTrue();
    }
}
