package io.engram.model.deontic;

/** What a word of a clause can be, told from its spelling and the lexicon: a verb, a participle, an adverb. */
final class Grammar {

    /**
     * Every word WordNet 3.1 lists as a verb (8,431; a resource beside this class, with WordNet's licence): what a
     * word must be to start an instruction the closed list does not know ("Celebrate", "Ground"), where "Python" or
     * "Monorepo" before a preposition names a thing.
     */
    private static final WordSet WORDNET_VERBS = new WordSet(Words.lines("wordnet-verbs.txt"));
    private static final WordSet SOFTWARE_VERBS = Words.set("grammar/software-verbs");
    private static final WordSet NOT_VERBS = Words.set("grammar/not-verbs");
    private static final WordSet NOUN_PREFIXES = Words.set("grammar/noun-prefixes");

    private Grammar() {
    }

    /** A verb of the closed list, or a word that can be a base-form verb ({@link #baseFormVerb}). */
    static boolean verb(Clause c, int w) {
        return c.in(Lexicon.IMPERATIVE_VERBS, w) || baseFormVerb(c, w);
    }

    /**
     * Whether the word at {@code w} can be a base-form verb the closed list does not know ("Spawn", "Celebrate",
     * "Ground"): a lower-case word, or capitalized only at its first letter, of at least three letters, that
     * is no function word and is a verb of WordNet's or of software work's ("Python", "Monorepo" are not).
     */
    static boolean baseFormVerb(Clause c, int w) {
        if (!c.isWord(w) || c.in(NOT_VERBS, w)) {
            return false;
        }
        int start = c.start(w);
        int end = c.end(w);
        if (end - start < 3) {
            return false;
        }
        for (int i = start; i < end; i++) {
            char ch = c.charAt(i);
            if (!(ch >= 'a' && ch <= 'z') && !(i == start && ch >= 'A' && ch <= 'Z')) {
                return false;
            }
        }
        return c.contains(WORDNET_VERBS, start, end) || c.contains(SOFTWARE_VERBS, start, end);
    }

    /** A past participle of a WordNet verb: "gated" (gate), "guarded" (guard), "pinned" (pin). */
    static boolean participle(Clause c, int k) {
        int start = c.start(k);
        int end = c.end(k);
        if (end - start < 5 || !c.endsWith(k, "ed") || !Character.isLowerCase(c.charAt(start))) {
            return false;
        }
        return c.contains(WORDNET_VERBS, start, end - 2) || c.contains(WORDNET_VERBS, start, end - 1)
                || c.charAt(end - 3) == c.charAt(end - 4) && c.contains(WORDNET_VERBS, start, end - 3);
    }

    /** "… — never runs user code —": a verb in the third person describes its subject; "Never run …" instructs. */
    static boolean thirdPerson(Clause c, int w) {
        if (!c.isWord(w) || c.end(w) - c.start(w) < 4 || !c.endsWith(w, "s")) {
            return false;
        }
        return !c.endsWith(w, "ss") && !c.endsWith(w, "us") && !c.endsWith(w, "is");
    }

    /** An adverb in -ly of at least five letters: "locally", "directly", "carefully". */
    static boolean lyAdverb(Clause c, int t) {
        return c.isWord(t) && c.end(t) - c.start(t) >= 5 && c.endsWith(t, "ly")
                && Character.isLowerCase(c.charAt(c.start(t)));
    }

    /** A hyphenated word whose last part is a verb of the closed list: "Auto-detect", "Hand-edit". */
    static boolean hyphenatedVerb(Clause c, int w) {
        if (!c.isWord(w)) {
            return false;
        }
        for (int p = c.end(w) - 2; p > c.start(w); p--) {
            if (c.charAt(p) == '-') {
                // "Pre-commit hooks", "Post-build steps", "Non-blocking I/O" name things
                return !c.contains(NOUN_PREFIXES, c.start(w), p) && c.contains(Lexicon.IMPERATIVE_VERBS, p + 1, c.end(w));
            }
        }
        return false;
    }

    /** The clause from {@code w} is a whole sentence of at most {@code words} words: a terse norm can be one. */
    static boolean terse(Clause c, int w, int words) {
        char boundary = c.boundary();
        if (c.count() - w > words || c.count() - w < 2
                || (boundary != '.' && boundary != '!' && boundary != ':' && boundary != 0)) {
            return false;
        }
        for (int t = w; t < c.count(); t++) {
            if (!c.isWord(t)) {
                return false;
            }
        }
        return !c.commaAfter(w); // "No, I won't …" answers, it does not forbid
    }

    /** "Pre-commit hook: Runs `pnpm install` if …": a label's value that says what the labelled thing does. */
    static boolean describes(Clause c, int i) {
        return thirdPerson(c, i) && i + 1 < c.count() && (c.isCode(i + 1) || c.in(Lexicon.IMPERATIVE_FOLLOWERS, i + 1));
    }
}
