package io.engram.model.deontic;

import io.engram.model.embed.OnnxEncoder;
import io.engram.model.tokens.TokenEstimate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * The learned rule reader (docs/algorithms.md, "The rule reader"): all-MiniLM-L6-v2 fine-tuned on the development
 * sets to tell whether a sentence, read under the headings above it, is a rule for the agent, and with which
 * modality. It runs through ONNX Runtime ({@link OnnxEncoder}); the model, its threshold and its input limits come
 * from {@code rule-reader.onnx} and {@code rule-reader.properties} beside this class, which
 * tools/train-rule-reader writes, and the tokenizer is the encoder's own, from the classpath.
 *
 * <p>Input: {@code [CLS] context [SEP] sentence [SEP]}, the context being the two nearest headings without their
 * marks (at most {@code context.tokens} tokens), the whole at most {@code max.tokens}. The model is quantised
 * dynamically, so a row's output depends on the rows beside it: each sentence runs in a call of its own, which
 * keeps a reading the same whatever else is read. Thread-safe.
 */
public final class RuleReader implements AutoCloseable {

    /** What the model read in one sentence. */
    public record Reading(boolean rule, Modality modality, double ruleProbability) {
    }

    private static final Modality[] MODALITIES = {Modality.OBLIGATORY, Modality.FORBIDDEN, Modality.PERMITTED};

    private final OnnxEncoder model;
    private final double threshold;
    private final int maxTokens;
    private final int contextTokens;
    private final String combination;
    private final long[] cls;
    private final long[] sep;

    private RuleReader(OnnxEncoder model, Properties settings) {
        this.model = model;
        this.threshold = Double.parseDouble(settings.getProperty("threshold"));
        this.maxTokens = Integer.parseInt(settings.getProperty("max.tokens"));
        this.contextTokens = Integer.parseInt(settings.getProperty("context.tokens"));
        this.combination = settings.getProperty("combination");
        this.cls = model.prefixIds();
        this.sep = model.suffixIds();
        if (!"N,O,F,P".equals(settings.getProperty("labels"))) {
            throw new IllegalStateException("rule-reader.properties: labels must be N,O,F,P, not " + settings.getProperty("labels"));
        }
    }

    /** The reader that ships in this jar. */
    public static RuleReader shipped() {
        Properties settings = new Properties();
        try (InputStream in = RuleReader.class.getResourceAsStream("rule-reader.properties")) {
            settings.load(Objects.requireNonNull(in, "rule-reader.properties is not on the classpath"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read rule-reader.properties", e);
        }
        String encoder = settings.getProperty("encoder");
        return new RuleReader(OnnxEncoder.fromClasspath("io/engram/model/deontic/rule-reader.onnx",
                encoder + "-tokenizer.json", 1), settings);
    }

    /** The probability threshold above which a sentence is a rule, chosen by cross-validation. */
    public double threshold() {
        return threshold;
    }

    /** How the model and the lexer combine, as chosen on the development sets (rule-reader.properties). */
    public String combination() {
        return combination;
    }

    /** The model's probabilities of N (no rule), O, F and P for a sentence under a heading path. */
    public float[] probabilities(String sentence, List<String> headingPath) {
        List<long[]> ids = new ArrayList<>(1);
        List<long[]> types = new ArrayList<>(1);
        encode(context(headingPath), sentence, ids, types);
        FloatBuffer out = model.run(ids, types, ids.get(0).length);
        float[] p = new float[4];
        out.get(0, p);
        return p;
    }

    /**
     * Whether the reader agrees that a text in which the lexer found a rule states one: its reading, where it can read
     * the text. It is a fine-tune of an English encoder, so a text in Han, kana, Hangul or Bopomofo — rules only the
     * lexer's Chinese reading finds — is taken on the lexer's word (openclaw's Chinese SOUL.md kept none of its rules
     * hard otherwise).
     */
    public boolean confirms(String text, List<String> headingPath) {
        return !reads(text) || read(text, headingPath).rule();
    }

    /** Whether the text is in a script the reader reads: none of its characters Han, kana, Hangul or Bopomofo. */
    static boolean reads(CharSequence text) {
        return !TokenEstimate.cjk(text);
    }

    /** Whether a sentence under a heading path is a rule, and its most likely modality. */
    public Reading read(String sentence, List<String> headingPath) {
        float[] p = probabilities(sentence, headingPath);
        int best = 1;
        for (int c = 2; c < 4; c++) {
            if (p[c] > p[best]) {
                best = c;
            }
        }
        double rule = 1.0 - p[0];
        return new Reading(rule >= threshold, MODALITIES[best - 1], rule);
    }

    /** The two nearest headings of a path, their marks removed, nearest last (the training tool builds the same). */
    static String context(List<String> headingPath) {
        List<String> titles = new ArrayList<>();
        for (String heading : headingPath.subList(Math.max(0, headingPath.size() - 2), headingPath.size())) {
            int from = 0;
            while (from < heading.length() && heading.charAt(from) == '#') {
                from++;
            }
            titles.add(heading.substring(from).strip());
        }
        return String.join(" > ", titles);
    }

    private void encode(String context, String sentence, List<long[]> ids, List<long[]> types) {
        long[] ctx = model.tokenize(context);
        ctx = Arrays.copyOf(ctx, Math.min(ctx.length, contextTokens));
        long[] text = model.tokenize(sentence);
        text = Arrays.copyOf(text, Math.min(text.length, maxTokens - ctx.length - cls.length - 2 * sep.length));
        long[] row = new long[cls.length + ctx.length + sep.length + text.length + sep.length];
        long[] type = new long[row.length];
        int at = 0;
        for (long[] part : new long[][] {cls, ctx, sep, text, sep}) {
            System.arraycopy(part, 0, row, at, part.length);
            at += part.length;
        }
        Arrays.fill(type, cls.length + ctx.length + sep.length, row.length, 1L);
        ids.add(row);
        types.add(type);
    }

    @Override
    public void close() {
        model.close();
    }
}
