package io.engram.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
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

    @Test
    void theSameSerializerAndLayoutIsCompatibleAsIs() throws Exception {
        TypeSerializerSnapshot<String> old = SerializerChecks.throughASavepoint(new Words());
        assertThat(old.restoreSerializer()).isInstanceOf(Words.class).isEqualTo(new Words());
        assertThat(new Words().snapshotConfiguration().resolveSchemaCompatibility(old).isCompatibleAsIs()).isTrue();
    }

    @Test
    void anotherLayoutVersionOrSerializerIsRefusedNotMisread() throws Exception {
        TypeSerializerSnapshot<String> old = SerializerChecks.throughASavepoint(new Words());
        assertThat(new WordsV2().snapshotConfiguration().resolveSchemaCompatibility(old).isIncompatible()).isTrue();
        assertThat(new Letters().snapshotConfiguration().resolveSchemaCompatibility(old).isIncompatible()).isTrue();
    }
}
