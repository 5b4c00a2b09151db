package io.engram.bench;

import io.engram.model.embed.Embedder;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.entities.EntityMentions;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What finding a record's entity mentions costs next to embedding it, per record, on the same 64 texts: {@link
 * EntityMentions} (tokenizer and part-of-speech tagger) against the pipeline's default model, bge-small-en-v1.5
 * int8, for short (~12 words) and medium (~95 words) texts ({@link EmbeddingBenchmark.Texts}). Every record the job indexes is embedded, and all but
 * windows are tagged, in the writer (docs/benchmarks.md, "What the entity graph costs and finds"). ms/op ÷ 64 = ms a record.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-DOPT_OUT_TRACKING=true"})
public class EntityMentionsBenchmark {

    /** The pipeline's default embedder. */
    @State(Scope.Benchmark)
    public static class Model {
        Embedder embedder;

        @Setup
        public void load() {
            embedder = EmbeddingModel.BGE_SMALL_EN_V15_Q.embedder();
        }

        @TearDown
        public void close() throws Exception {
            embedder.close();
        }
    }

    @Benchmark
    public int mentions(EmbeddingBenchmark.Texts t) {
        int names = 0;
        for (String text : t.texts) {
            names += EntityMentions.in(text).size();
        }
        return names;
    }

    @Benchmark
    public Object embedding(Model m, EmbeddingBenchmark.Texts t) {
        return m.embedder.embedDocumentBatch(t.texts);
    }
}
