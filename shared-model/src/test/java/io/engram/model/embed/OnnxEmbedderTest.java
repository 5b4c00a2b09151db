package io.engram.model.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.engram.model.embed.EmbedderOptions.LongTextMode;
import io.engram.model.embed.EmbedderOptions.Pooling;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OnnxEmbedderTest {

    private static OnnxEmbedder embedder;

    @BeforeAll
    static void load() {
        embedder = EmbeddingModel.ALL_MINILM_L6_V2.open();
    }

    @AfterAll
    static void close() {
        embedder.close();
    }

    private static double norm(float[] v) {
        return Math.sqrt(Vectors.dot(v, v));
    }

    @Test
    void vectorsAreUnitLengthOfTheModelsDimension() {
        Embedding e = embedder.embedDocument("The deploy key lives in the vault.");
        assertThat(e.dimension()).isEqualTo(384);
        assertThat(embedder.dimension()).isEqualTo(384);
        assertThat(norm(e.vector())).isCloseTo(1.0, within(1e-5));
        assertThat(e.tokens()).isEqualTo(8); // the deploy key lives in the vault .
        assertThat(e.truncated()).isFalse();
        assertThat(e.windows()).isEqualTo(1);
        assertThat(embedder.modelId()).isEqualTo("all-minilm-l6-v2/384/mean/w256-average");
    }

    @Test
    void similarTextsAreCloserThanUnrelatedOnes() {
        List<Embedding> e = embedder.embedDocuments(List.of(
                "Where is the deploy key stored?", "The deploy key lives in the vault.", "I love painting sunsets."));
        assertThat(e.get(0).cosine(e.get(1))).isGreaterThan(e.get(0).cosine(e.get(2)) + 0.2);
    }

    @Test
    void blankTextsHaveADefinedVectorAndDoNotFailTheirBatch() {
        List<Embedding> e = embedder.embedDocuments(List.of("", "   \n\t", "real text"));
        assertThat(e.get(0).blank()).isTrue();
        assertThat(e.get(0).tokens()).isZero();
        assertThat(norm(e.get(0).vector())).isCloseTo(1.0, within(1e-5));
        assertThat(e.get(1).blank()).isTrue();
        // whitespace tokenises to nothing: the same "no content" vector as the empty text
        assertThat(e.get(0).cosine(e.get(1))).isCloseTo(1.0, within(1e-6));
        assertThat(e.get(2).blank()).isFalse();
        assertThat(e.get(2).cosine(embedder.embedDocument("real text"))).isCloseTo(1.0, within(1e-5));
    }

    @Test
    void loneSurrogatesAreReplacedNotFatal() {
        String broken = "broken \uD83D text and \uDE00 here";
        Embedding e = embedder.embedDocument(broken);
        Embedding replaced = embedder.embedDocument("broken \uFFFD text and \uFFFD here");
        assertThat(e.cosine(replaced)).isCloseTo(1.0, within(1e-6));
        assertThat(embedder.tokenCounter().count(broken)).isEqualTo(e.tokens());
    }

    @Test
    void longTextsAreWindowedAndAveragedOrTruncatedByOption() {
        String text = "hello ".repeat(600).strip(); // one token per word
        Embedding averaged = embedder.embedDocument(text);
        assertThat(averaged.tokens()).isEqualTo(600);
        assertThat(averaged.windows()).isEqualTo(3); // 254 content tokens per 256-token window
        assertThat(averaged.truncated()).isFalse();
        assertThat(norm(averaged.vector())).isCloseTo(1.0, within(1e-5));

        try (OnnxEmbedder truncating = EmbeddingModel.ALL_MINILM_L6_V2.open(
                EmbedderOptions.defaults().withWindow(256, LongTextMode.TRUNCATE))) {
            Embedding cut = truncating.embedDocument(text);
            assertThat(cut.truncated()).isTrue();
            assertThat(cut.windows()).isEqualTo(1);
            assertThat(cut.tokens()).isEqualTo(600);
            Embedding firstWindow = truncating.embedDocument("hello ".repeat(254).strip());
            assertThat(cut.cosine(firstWindow)).isCloseTo(1.0, within(1e-5));
            assertThat(truncating.modelId()).endsWith("w256-truncate");
        }
    }

    @Test
    void windowAverageIsTheTokenWeightedMeanOfItsWindows() {
        // 254 + 254 + 92 content tokens; each window is embedded alone and averaged by its real tokens
        String first = "alpha ".repeat(254).strip();
        String second = "beta ".repeat(254).strip();
        String third = "gamma ".repeat(92).strip();
        Embedding whole = embedder.embedDocument(first + " " + second + " " + third);
        assertThat(whole.windows()).isEqualTo(3);
        try (OnnxEmbedder raw = EmbeddingModel.ALL_MINILM_L6_V2.open()) {
            List<Embedding> parts = raw.embedDocuments(List.of(first, second, third));
            // unit vectors do not carry the unnormalised means' norms, so compare directions loosely
            float[] mix = new float[384];
            int[] weights = {256, 256, 94};
            for (int p = 0; p < 3; p++) {
                for (int i = 0; i < 384; i++) {
                    mix[i] += parts.get(p).vector()[i] * weights[p];
                }
            }
            assertThat(Vectors.cosine(mix, whole.vector())).isGreaterThan(0.99);
        }
    }

    @Test
    void matryoshkaTruncationRenormalisesThePrefix() {
        Embedding full = embedder.embedDocument("Matryoshka dolls nest inside each other.");
        try (OnnxEmbedder small = EmbeddingModel.ALL_MINILM_L6_V2.open(EmbedderOptions.defaults().withDimension(128))) {
            Embedding e = small.embedDocument("Matryoshka dolls nest inside each other.");
            assertThat(e.dimension()).isEqualTo(128);
            assertThat(small.dimension()).isEqualTo(128);
            assertThat(norm(e.vector())).isCloseTo(1.0, within(1e-5));
            float[] prefix = java.util.Arrays.copyOf(full.vector(), 128);
            assertThat(Vectors.cosine(prefix, e.vector())).isCloseTo(1.0, within(1e-5));
            assertThat(small.modelId()).startsWith("all-minilm-l6-v2/128/");
        }
    }

    @Test
    void clsPoolingTakesTheFirstTokenInsteadOfTheMean() {
        try (OnnxEmbedder cls = EmbeddingModel.ALL_MINILM_L6_V2.open(EmbedderOptions.defaults().withPooling(Pooling.CLS))) {
            Embedding a = cls.embedDocument("pooling differs");
            Embedding mean = embedder.embedDocument("pooling differs");
            assertThat(norm(a.vector())).isCloseTo(1.0, within(1e-5));
            assertThat(a.cosine(mean)).isLessThan(0.999);
            assertThat(cls.modelId()).contains("/cls/");
        }
    }

    @Test
    void queryAndDocumentPrefixesAreApplied() {
        try (OnnxEmbedder prefixed = EmbeddingModel.ALL_MINILM_L6_V2.open(
                EmbedderOptions.defaults().withPrefixes("query: ", "passage: "))) {
            Embedding q = prefixed.embedQuery("where is the key");
            Embedding d = prefixed.embedDocument("where is the key");
            assertThat(q.cosine(embedder.embedDocument("query: where is the key"))).isCloseTo(1.0, within(1e-5));
            assertThat(d.cosine(embedder.embedDocument("passage: where is the key"))).isCloseTo(1.0, within(1e-5));
            assertThat(q.tokens()).isEqualTo(4); // the text's own tokens, not the prefix's
            assertThat(prefixed.modelId()).contains("/q=query: /d=passage: ");
        }
    }

    @Test
    void resultsDoNotDependOnBatchCompositionOrOrder() {
        List<String> texts = new ArrayList<>(ParityTexts.all());
        List<Embedding> forward = embedder.embedDocuments(texts);
        List<String> reversed = new ArrayList<>(texts);
        java.util.Collections.reverse(reversed);
        List<Embedding> backward = embedder.embedDocuments(reversed);
        for (int i = 0; i < texts.size(); i++) {
            assertThat(forward.get(i).cosine(backward.get(texts.size() - 1 - i))).isGreaterThan(0.99999);
        }
    }

    @Test
    void tokenCounterIsTheModelsTokenizer() {
        assertThat(embedder.tokenCounter().id()).isEqualTo("all-minilm-l6-v2");
        assertThat(embedder.tokenCounter().count("hello world")).isEqualTo(2);
        assertThat(embedder.tokenCounter().count("")).isZero();
        assertThat(embedder.tokenCounter().count("tokenization")).isEqualTo(2); // token ##ization
    }

    @Test
    void thePartitionerCanCountWithTheModelsTokenizer() throws Exception {
        io.engram.model.partition.MarkdownPartitioner partitioner = new io.engram.model.partition.MarkdownPartitioner(
                io.engram.model.partition.PartitionConfig.defaults().withTokens(embedder.tokenCounter()));
        byte[] raw = "# Rules\n\n- Always check the tokenization\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        io.engram.model.partition.PartitionedDocument doc = partitioner.partition(raw);
        assertThat(doc.cacheKey()).isEqualTo(io.engram.model.partition.DocumentCacheKey.of(raw, "all-minilm-l6-v2+rule-tiers"));
        // "-", "always", "check", "the", "token", "##ization": the model's count, not the estimate ceil(31 / 4) = 8
        assertThat(doc.nodes().get(1).tokens()).isEqualTo(6);
        assertThat(io.engram.model.tokens.TokenEstimate.of("- Always check the tokenization")).isEqualTo(8);
    }

    @Test
    void aModelGivenByPathEmbedsLikeTheClasspathCopy(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path model = dir.resolve("model.onnx");
        java.nio.file.Path tokenizer = dir.resolve("tokenizer.json");
        try (var in = OnnxEmbedder.class.getClassLoader().getResourceAsStream("all-minilm-l6-v2.onnx")) {
            java.nio.file.Files.copy(in, model);
        }
        try (var in = OnnxEmbedder.class.getClassLoader().getResourceAsStream("all-minilm-l6-v2-tokenizer.json")) {
            java.nio.file.Files.copy(in, tokenizer);
        }
        try (OnnxEmbedder byPath = OnnxEmbedder.fromFiles(model, tokenizer, EmbedderOptions.defaults())) {
            assertThat(byPath.modelId()).startsWith("model/384/");
            assertThat(byPath.embedDocument("same vectors").cosine(embedder.embedDocument("same vectors")))
                    .isCloseTo(1.0, within(1e-6));
        }
    }

    @Test
    void quantizedModelIsReproducibleOneRowPerCall() {
        try (OnnxEmbedder q = EmbeddingModel.ALL_MINILM_L6_V2_Q.open()) {
            Embedding alone = q.embedDocument("The deploy key lives in the vault.");
            List<Embedding> inCompany = q.embedDocuments(List.of(
                    "a much longer sentence about something entirely different, with numbers 1 2 3",
                    "The deploy key lives in the vault.", "短い"));
            assertThat(alone.vector()).containsExactly(inCompany.get(1).vector());
            assertThat(alone.cosine(embedder.embedDocument("The deploy key lives in the vault."))).isGreaterThan(0.95);
            assertThat(q.modelId()).startsWith("all-minilm-l6-v2-q/384/");
        }
    }
}
