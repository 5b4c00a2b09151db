package io.engram.model.entities;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import opennlp.tools.ml.model.MaxentModel;
import opennlp.tools.postag.POSModel;
import opennlp.tools.postag.POSTaggerME;
import opennlp.tools.tokenize.TokenizerFactory;
import opennlp.tools.tokenize.TokenizerME;
import opennlp.tools.tokenize.TokenizerModel;

/**
 * The entities a text mentions (docs/algorithms.md, "Entities"): the people, places, organisations and other
 * things it names, as Apache OpenNLP's English Universal Dependencies models tag them. A name is a run of tokens
 * tagged proper noun ({@code PROPN}) — with the capitalised adjectives and nouns next to them — lower-cased and joined by one space ("New York", "Charlotte's Web" →
 * {@code new york}, {@code charlotte}); a possessive ends it. A turn's speaker label ("Caroline: …") is who
 * speaks, not a mention. Distinct names in order of first mention, at most {@link #MAX_PER_TEXT}.
 *
 * <p>Thread-safe: the models load once; each thread tags with its own tagger, as OpenNLP's are not shareable.
 */
public final class EntityMentions {

    /** Enough for a long turn or memory; a document chunk naming more keeps its first ones. */
    public static final int MAX_PER_TEXT = 16;
    /** Longer runs are tagging noise (a title in capitals), not one name. */
    static final int MAX_NAME_CHARS = 64;

    private static final Pattern SPEAKER_LABEL = Pattern.compile("^\\s*\\p{Lu}[\\p{L}'-]*(?: \\p{Lu}[\\p{L}'-]*){0,2}:\\s");
    private static final Pattern WORDLIKE = Pattern.compile(".*\\p{L}.*");
    /** A name is written with a capital somewhere ("Paris", "eBay"); the tagger also calls ids and handles proper nouns. */
    private static final Pattern CAPITAL = Pattern.compile("\\p{Lu}");
    private static final Pattern SENTENCE_END = Pattern.compile("[.!?:;\"“”(\\[-]+|…");
    /** What a name's first word may be tagged when a proper noun follows ("New" York); not a noun ("Thanks" Nate). */
    private static final Set<String> NAME_HEAD = Set.of("PROPN", "ADJ");
    /** What does not follow a sentence's subject: "Glad you …", "Cool!", "Congrats on …", "Way to go". */
    private static final Set<String> NOT_AFTER_A_SUBJECT = Set.of("PRON", "PUNCT", "ADP", "PART", "DET", "SCONJ",
            "CCONJ", "INTJ", "SYM");
    private static final Set<String> OPEN_CLASS = Set.of("NOUN", "ADJ", "VERB", "ADV", "X");
    private static final ThreadLocal<Taggers> TAGGERS = ThreadLocal.withInitial(Taggers::new);

    private EntityMentions() {
    }

    /** The names {@code text} mentions; empty for a text naming nothing. */
    public static List<String> in(String text) {
        String body = SPEAKER_LABEL.matcher(text).replaceFirst("");
        if (body.isBlank()) {
            return List.of();
        }
        Taggers taggers = TAGGERS.get();
        String[] tokens = taggers.tokenizer.tokenize(body);
        String[] tags = taggers.tagger.tag(tokens);
        Set<String> names = new LinkedHashSet<>();
        List<String> run = new ArrayList<>();
        for (int i = 0; i <= tokens.length && names.size() < MAX_PER_TEXT; i++) {
            if (i < tokens.length && (startsSentence(tokens, i) ? namesAtSentenceStart(tokens, tags, i)
                    : partOfName(tokens[i], tags[i]))) {
                run.add(tokens[i].toLowerCase(Locale.ROOT));
                continue;
            }
            String name = String.join(" ", run);
            if (name.length() >= 2 && name.length() <= MAX_NAME_CHARS) {
                names.add(name);
            }
            run.clear();
        }
        return List.copyOf(names);
    }

    /**
     * Past a sentence's first word, a proper noun or a capitalised word of an open class, written with a capital
     * either way: the tagger reads "New" in "New York" as an adjective and some first names it has not seen as
     * nouns, verbs or adverbs, and tags some ids ("e9e0d5b9") as proper nouns. "I" is a pronoun.
     */
    private static boolean partOfName(String token, String tag) {
        if (!WORDLIKE.matcher(token).matches() || !CAPITAL.matcher(token).find()) {
            return false;
        }
        return "PROPN".equals(tag) || (OPEN_CLASS.contains(tag) && Character.isUpperCase(token.codePointAt(0)));
    }

    /**
     * A sentence's first word names something when a proper noun follows it in the same name ("New York …") or it
     * is a proper noun followed by what may follow a subject ("Anna starts …"; the tagger reads "lives" in "Anna
     * lives …" as a noun): it also reads a chatty sentence's first word as a proper noun ("Glad you came",
     * "Congrats on …", "Cool!", "Writing helps …").
     */
    private static boolean namesAtSentenceStart(String[] tokens, String[] tags, int i) {
        if (!partOfName(tokens[i], tags[i]) || i + 1 >= tokens.length) {
            return false;
        }
        if (NAME_HEAD.contains(tags[i]) && "PROPN".equals(tags[i + 1]) && partOfName(tokens[i + 1], tags[i + 1])) {
            return true;
        }
        return "PROPN".equals(tags[i]) && (partOfName(tokens[i + 1], tags[i + 1])
                || (!NOT_AFTER_A_SUBJECT.contains(tags[i + 1]) && !tokens[i].toLowerCase(Locale.ROOT).endsWith("ing")));
    }

    /** A capitalised word here is capitalised for its place, not because it names something. */
    private static boolean startsSentence(String[] tokens, int i) {
        return i == 0 || SENTENCE_END.matcher(tokens[i - 1]).matches();
    }

    private static final class Taggers {
        final TokenizerME tokenizer = new TokenizerME(Models.TOKENIZER);
        final POSTaggerME tagger = new POSTaggerME(Models.POS);
    }

    /**
     * Loaded on first use: about 1.5 MB from the models' jars, each run cheaper than as shipped (docs/algorithms.md,
     * "Entities"). The tokenizer keeps an alphanumeric word whole instead of asking its model at every character: as
     * shipped it splits "SDK" into "SD K" and "AgentPlanner" into two words. The tagger takes each token's best tag
     * in turn (a beam of one) instead of keeping the three best sequences: on LoCoMo's development turns and the
     * repository's agent documents (129,199 tokens) both gave the same tags, at a third of the work.
     */
    private static final class Models {
        /** Where a part-of-speech model keeps its classifier (OpenNLP's {@code POSModel.POS_MODEL_ENTRY_NAME}). */
        private static final String POS_MODEL_ENTRY = "pos.model";

        static final TokenizerModel TOKENIZER = wholeAlphanumericWords(
                load("/opennlp-en-ud-ewt-tokens-1.1-2.4.0.bin", TokenizerModel::new));
        static final POSModel POS = bestTagInTurn(load("/opennlp-en-ud-ewt-pos-1.1-2.4.0.bin", POSModel::new));

        private static TokenizerModel wholeAlphanumericWords(TokenizerModel shipped) {
            TokenizerFactory factory = shipped.getFactory();
            return new TokenizerModel(shipped.getMaxentModel(), Map.of(), new TokenizerFactory(factory.getLanguageCode(),
                    shipped.getAbbreviations(), true, factory.getAlphaNumericPattern()));
        }

        private static POSModel bestTagInTurn(POSModel shipped) {
            return new POSModel(shipped.getLanguage(), (MaxentModel) shipped.getArtifact(POS_MODEL_ENTRY), 1, Map.of(),
                    shipped.getFactory());
        }

        private interface Reader<M> {
            M read(InputStream in) throws IOException;
        }

        private static <M> M load(String resource, Reader<M> reader) {
            try (InputStream in = EntityMentions.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("OpenNLP model " + resource + " is not on the classpath");
                }
                return reader.read(in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read OpenNLP model " + resource, e);
            }
        }
    }
}
