package io.engram.model.embed;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A BERT-style ONNX model and its tokenizer on ONNX Runtime's CPU provider: tokenizing without special tokens,
 * the special tokens the model expects around content, and a run over rows padded to one length with an
 * attention mask (and token types, where the model takes them). What the first output means is the caller's:
 * {@link OnnxEmbedder} pools its per-token states into sentence vectors, the deontic package's rule reader reads
 * class probabilities. Thread-safe: ONNX Runtime sessions and the tokenizer accept concurrent calls.
 */
public final class OnnxEncoder implements AutoCloseable {

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final boolean takesTokenTypes;
    private final long[] outputShape;
    private final long[] prefixIds;
    private final long[] suffixIds;

    /** Loads a model from its bytes and its tokenizer.json; {@code intraOpThreads} is ONNX Runtime's per-call parallelism. */
    public static OnnxEncoder load(byte[] model, InputStream tokenizerJson, int intraOpThreads) {
        try {
            return new OnnxEncoder(model, tokenizerJson, intraOpThreads);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the tokenizer", e);
        }
    }

    /** Loads a model and its tokenizer from classpath resources. */
    public static OnnxEncoder fromClasspath(String model, String tokenizer, int intraOpThreads) {
        ClassLoader loader = OnnxEncoder.class.getClassLoader();
        try (InputStream modelIn = loader.getResourceAsStream(model);
             InputStream tokenizerIn = loader.getResourceAsStream(tokenizer)) {
            if (modelIn == null || tokenizerIn == null) {
                throw new IllegalStateException(model + " or " + tokenizer + " is not on the classpath");
            }
            return load(modelIn.readAllBytes(), tokenizerIn, intraOpThreads);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load " + model, e);
        }
    }

    private OnnxEncoder(byte[] model, InputStream tokenizerJson, int intraOpThreads) throws IOException {
        this.tokenizer = HuggingFaceTokenizer.newInstance(tokenizerJson,
                Map.of("padding", "false", "truncation", "false", "addSpecialTokens", "false"));
        this.environment = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions sessionOptions = new OrtSession.SessionOptions()) {
            sessionOptions.setIntraOpNumThreads(intraOpThreads);
            sessionOptions.setInterOpNumThreads(1);
            sessionOptions.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            this.session = environment.createSession(model, sessionOptions);
            this.takesTokenTypes = session.getInputNames().contains("token_type_ids");
            NodeInfo output = session.getOutputInfo().values().iterator().next();
            this.outputShape = ((TensorInfo) output.getInfo()).getShape();
        } catch (OrtException e) {
            tokenizer.close();
            throw new IllegalStateException("ONNX Runtime cannot load the model: " + e.getMessage(), e);
        }
        // The special tokens the model expects around content: where "a" sits inside its full encoding.
        long[] bare = tokenizer.encode("a", false, false).getIds();
        long[] full = tokenizer.encode("a", true, false).getIds();
        int at = indexOf(full, bare);
        this.prefixIds = at < 0 ? new long[0] : Arrays.copyOfRange(full, 0, at);
        this.suffixIds = at < 0 ? new long[0] : Arrays.copyOfRange(full, at + bare.length, full.length);
    }

    private static int indexOf(long[] haystack, long[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The token ids of a text, without special tokens (lone surrogates replaced first). */
    public long[] tokenize(String text) {
        return tokenizer.encode(Utf16.sanitize(text), false, false).getIds();
    }

    /** {@link #tokenize} of many texts in one call. */
    public long[][] tokenize(List<String> texts) {
        Encoding[] encodings = tokenizer.batchEncode(texts.stream().map(Utf16::sanitize).toList(), false, false);
        long[][] ids = new long[encodings.length][];
        for (int i = 0; i < encodings.length; i++) {
            ids[i] = encodings[i].getIds();
        }
        return ids;
    }

    /** The special tokens before content ([CLS] for BERT). */
    public long[] prefixIds() {
        return prefixIds.clone();
    }

    /** The special tokens after content ([SEP] for BERT), also what separates two segments. */
    public long[] suffixIds() {
        return suffixIds.clone();
    }

    /** The declared shape of the first output, -1 where it depends on the input. */
    public long[] outputShape() {
        return outputShape.clone();
    }

    /**
     * Runs rows of token ids, each padded with 0 to {@code length} under a 0 attention mask, and returns the first
     * output, row-major. {@code typeRows} holds each row's token types, or is null for all 0.
     */
    public FloatBuffer run(List<long[]> rows, List<long[]> typeRows, int length) {
        int size = rows.size();
        LongBuffer ids = LongBuffer.allocate(size * length);
        LongBuffer mask = LongBuffer.allocate(size * length);
        LongBuffer types = LongBuffer.allocate(size * length);
        for (int r = 0; r < size; r++) {
            long[] row = rows.get(r);
            ids.put(r * length, row);
            for (int t = 0; t < row.length; t++) {
                mask.put(r * length + t, 1L);
            }
            if (typeRows != null) {
                types.put(r * length, typeRows.get(r));
            }
        }
        long[] shape = {size, length};
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try {
            inputs.put("input_ids", OnnxTensor.createTensor(environment, ids, shape));
            inputs.put("attention_mask", OnnxTensor.createTensor(environment, mask, shape));
            if (takesTokenTypes) {
                inputs.put("token_type_ids", OnnxTensor.createTensor(environment, types, shape));
            }
            try (OrtSession.Result result = session.run(inputs)) {
                return ((OnnxTensor) result.get(0)).getFloatBuffer();
            }
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime inference failed: " + e.getMessage(), e);
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException("cannot close the ONNX session", e);
        } finally {
            tokenizer.close();
        }
    }
}
