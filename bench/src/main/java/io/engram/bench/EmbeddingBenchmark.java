package io.engram.bench;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import io.engram.model.embed.EmbedderOptions;
import io.engram.model.embed.Embedding;
import io.engram.model.embed.OnnxEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Sentences per second on the same 64 texts: langchain4j's {@code embedAll} (what a Java user would pick)
 * against Engram's {@link OnnxEmbedder}, for short (~15 tokens) and medium (~120 tokens) texts, with the fp32
 * and the int8 model. sentences/s = ops/s × 64. Each benchmark runs in its own fork, which prints its peak
 * RSS (VmHWM) at the end.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-DOPT_OUT_TRACKING=true"})
public class EmbeddingBenchmark {

    static final int TEXTS = 64;

    /** The texts of one operation. */
    @State(Scope.Benchmark)
    public static class Texts {
        @Param({"short", "medium"})
        public String length;

        List<String> texts;

        @Setup
        public void make() {
            texts = texts(length.equals("short") ? 12 : 95, 7);
        }
    }

    /** langchain4j's in-process model. */
    @State(Scope.Benchmark)
    public static class Langchain4j {
        @Param({"fp32", "int8"})
        public String langchain4jModel;

        EmbeddingModel embedder;
        List<TextSegment> segments;

        @Setup
        public void load(Texts texts) {
            embedder = langchain4jModel.equals("fp32")
                    ? new AllMiniLmL6V2EmbeddingModel() : new AllMiniLmL6V2QuantizedEmbeddingModel();
            segments = texts.texts.stream().map(TextSegment::from).toList();
        }

        @TearDown(Level.Trial)
        public void report() {
            printPeakRss("langchain4j " + langchain4jModel);
        }
    }

    /** Engram's embedder: fp32 with its defaults; int8 one row per call (reproducible) or batched (fast). */
    @State(Scope.Benchmark)
    public static class Engram {
        @Param({"fp32", "int8", "int8-batched"})
        public String engramModel;

        OnnxEmbedder embedder;

        @Setup
        public void load() {
            embedder = switch (engramModel) {
                case "fp32" -> io.engram.model.embed.EmbeddingModel.ALL_MINILM_L6_V2.open();
                case "int8" -> io.engram.model.embed.EmbeddingModel.ALL_MINILM_L6_V2_Q.open();
                default -> io.engram.model.embed.EmbeddingModel.ALL_MINILM_L6_V2_Q.open(EmbedderOptions.defaults().withBatch(64, 8192));
            };
        }

        @TearDown(Level.Trial)
        public void close() {
            printPeakRss("engram " + engramModel);
            embedder.close();
        }
    }

    @Benchmark
    public Object langchain4jEmbedAll(Langchain4j l, Texts t) {
        return l.embedder.embedAll(l.segments).content();
    }

    @Benchmark
    public List<Embedding> engramEmbed(Engram e, Texts t) {
        return e.embedder.embedDocuments(t.texts);
    }

    /** Deterministic English-like sentences of about {@code words} words (≈ 1.2 tokens a word). */
    static List<String> texts(int words, long seed) {
        String[] vocabulary = ("the agent keeps a recent raw tail and compacts older turns into summaries whose "
                + "information loss is measured in the embedding space while hard rules stay in context and soft "
                + "rules fit a bounded share of the budget memory recall tenant session query window model token "
                + "vector cosine cluster centroid generation provenance merge floor canary cycle alert churn "
                + "collapse store shape distinct ratio bigram diversity yesterday Melanie painted lake sunrise "
                + "Caroline went hiking support group Thursday evening").split(" ");
        Random random = new Random(seed);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < TEXTS; i++) {
            StringBuilder b = new StringBuilder();
            int n = words - 2 + random.nextInt(5);
            for (int w = 0; w < n; w++) {
                b.append(w == 0 ? "" : " ").append(vocabulary[random.nextInt(vocabulary.length)]);
            }
            texts.add(b.append('.').toString());
        }
        return texts;
    }

    static void printPeakRss(String what) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM")) {
                    System.out.println("\n[peak-rss] " + what + ": " + line.replaceAll("\\s+", " "));
                }
            }
        } catch (IOException e) {
            System.out.println("\n[peak-rss] " + what + ": unavailable (" + e.getMessage() + ")");
        }
    }
}
