package io.engram.model.deontic;

import static io.engram.model.deontic.Modality.FORBIDDEN;
import static io.engram.model.deontic.Modality.OBLIGATORY;
import static io.engram.model.deontic.Modality.PERMITTED;

/**
 * The imperative reading: an instruction at the start of a clause. "Always …" (O), "Never …", "Do not / Don't …",
 * "Avoid …" (F), "Make sure …", "Prefer …", "Remember to …", "Time to …" (O), "Feel free to …" (P); "Be …", "Do
 * a …", a verb of the closed list ("Use …", "Run …") or a hyphenated one ("Auto-detect …"); and any word WordNet
 * knows as a verb when what follows it starts an object ("Spawn a coding agent", "Ground every claim").
 */
final class Imperative {

    private static final WordSet SURE = new WordSet("sure", "certain");
    private static final WordSet QUANTIFIERS = Words.set("imperative/quantifiers");
    private static final WordSet CLAUSE_VERBS = Words.set("imperative/clause-verbs");

    private Imperative() {
    }

    /** An opening: "Always …", "Never …", "Do not …", "Don't …", "Avoid …", "Make sure …", "Prefer …". */
    static boolean adverbs(Clause c, int w, ClauseRules found) {
        if (c.is(w, "always") && !Grammar.thirdPerson(c, w + 1)) {
            found.add(OBLIGATORY, w + 1, Trigger.ALWAYS);
        } else if (c.is(w, "never") && !Grammar.thirdPerson(c, w + 1)) {
            found.add(FORBIDDEN, w + 1, Trigger.NEVER);
        } else if (c.is(w, "do") && c.is(w + 1, "not")) {
            found.add(FORBIDDEN, w + 2, Trigger.DO_NOT);
        } else if (c.in(Lexicon.DONT, w)) {
            found.add(FORBIDDEN, w + 1, Trigger.DO_NOT);
        } else if (c.is(w, "avoid")) {
            found.add(FORBIDDEN, w + 1, Trigger.AVOID);
        } else if (c.is(w, "make") && c.in(SURE, w + 1)) {
            makeSure(c, w, found);
        } else if (c.is(w, "prefer")) {
            found.add(OBLIGATORY, w + 1, Trigger.PREFER);
        } else {
            return false;
        }
        return true;
    }

    /** "Make sure the build is green" obliges; "Make sure to never force push", "Make sure you don't …" forbid. */
    private static void makeSure(Clause c, int w, ClauseRules found) {
        int negation = -1;
        for (int t = w + 2; t < c.count() && t <= w + 4 && negation < 0; t++) {
            negation = c.in(Lexicon.NEGATIONS, t) || c.in(Lexicon.DONT, t) ? t : -1;
        }
        if (negation < 0) {
            found.add(OBLIGATORY, w + 2, Trigger.MAKE_SURE);
        } else {
            found.add(FORBIDDEN, negation + 1, Trigger.MAKE_SURE);
        }
    }

    /** An opening: "Feel free to …", "Time to figure out who you are", "Remember to …". */
    static boolean phrases(Clause c, int w, ClauseRules found) {
        if (c.is(w, "feel") && c.is(w + 1, "free") && c.is(w + 2, "to")) {
            found.add(PERMITTED, w + 3, Trigger.FEEL_FREE_TO);
        } else if (c.is(w, "time") && c.is(w + 1, "to") && w + 2 < c.count()) {
            found.add(OBLIGATORY, w + 2, Trigger.TIME_TO);
        } else if (c.is(w, "remember") && c.is(w + 1, "to")) {
            found.add(OBLIGATORY, w + 2, Trigger.REMEMBER_TO);
        } else {
            return false;
        }
        return true;
    }

    /** An opening: "Be …", "Do a brief check", a verb of the closed list, a hyphenated one ("Auto-detect …"). */
    static boolean verbs(Clause c, int w, ClauseRules found) {
        boolean instructs = c.is(w, "be") && w + 1 < c.count()
                // "…, do a brief check for …"; "Do the tests pass?" asks
                || c.is(w, "do") && c.in(Lexicon.IMPERATIVE_FOLLOWERS, w + 1) && !c.in(Lexicon.SUBORDINATORS, w + 1)
                && c.boundary() != '?'
                || closedListVerb(c, w)
                || Grammar.hyphenatedVerb(c, w) && w + 1 < c.count() && !c.in(Lexicon.NOUN_SIGNALS, w + 1);
        if (instructs) {
            found.add(OBLIGATORY, w, Trigger.IMPERATIVE);
        }
        return instructs;
    }

    /** A verb of the closed list followed by its object: "Edit any of these" instructs; "Build artifacts are …" names. */
    private static boolean closedListVerb(Clause c, int w) {
        return c.in(Lexicon.IMPERATIVE_VERBS, w) && (w + 1 < c.count() || objectAfterColon(c, w))
                && !c.in(Lexicon.NOUN_SIGNALS, w + 1)
                && !(c.is(w, "have") && (c.isYou(w + 1) || c.is(w + 1, "we") || c.is(w + 1, "they"))) // a question
                // "Use of …" names a thing, "Edit any of these" instructs, "Assume watch is running" too
                && (!c.in(Lexicon.NOUN_SIGNALS, w + 2) || c.is(w + 2, "of") && c.in(QUANTIFIERS, w + 1)
                        || c.in(CLAUSE_VERBS, w))
                && !(c.is(w, "note") && c.is(w + 1, "that")) && !namesActivity(c, w);
    }

    /** An opening: a word WordNet knows as a verb, before what an object starts with ("Spawn a coding agent"). */
    static boolean openClass(Clause c, int w, ClauseRules found) {
        if (!Grammar.baseFormVerb(c, w) || !objectFollows(c, Grammar.lyAdverb(c, w + 1) ? w + 2 : w + 1)) {
            return false;
        }
        found.add(OBLIGATORY, w, Trigger.IMPERATIVE);
        return true;
    }

    /** Done "freely", an instruction allows: "Read, edit, and update it freely in main sessions". */
    static void readFreely(Clause c, ClauseRules found) {
        for (int r = 0; r < found.size(); r++) {
            Rule rule = found.get(r);
            if (rule.modality() == OBLIGATORY && rule.trigger() == Trigger.IMPERATIVE && c.hasWord("freely")) {
                found.set(r, new Rule(PERMITTED, rule.action(), Trigger.FREELY));
            }
        }
    }

    /**
     * "If you have to rebuild all, run: `pnpm run build`": a verb that ends a main clause at a colon takes what
     * follows as its object (a clause's first word before a colon is a label: "Install: `uv sync`").
     */
    private static boolean objectAfterColon(Clause c, int w) {
        return w > 0 && w + 1 == c.count() && c.boundary() == ':';
    }

    /**
     * Whether what starts at {@code o} is what a base-form verb's object or preposition starts with: "Spawn a
     * coding agent", "Switch to the …", "test locally with `node dist/index.js`" (after an adverb), where
     * "Failure to do …" names (a noun takes an infinitive).
     */
    private static boolean objectFollows(Clause c, int o) {
        return (c.in(Lexicon.IMPERATIVE_FOLLOWERS, o) || c.isCode(o)) && !c.in(Lexicon.NOUN_SIGNALS, o + 1)
                && !(c.is(o, "to") && !(c.in(Lexicon.IMPERATIVE_FOLLOWERS, o + 1) || c.isCode(o + 1)));
    }

    /** "**Import sorting:** isort": a verb and a gerund as a label name an activity, not an instruction. */
    private static boolean namesActivity(Clause c, int w) {
        return w + 2 == c.count() && c.boundary() == ':' && c.isWord(w + 1) && c.endsWith(w + 1, "ing");
    }
}
