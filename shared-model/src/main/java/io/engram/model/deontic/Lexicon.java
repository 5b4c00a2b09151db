package io.engram.model.deontic;

/** The words more than one reading consults (each reading keeps its own beside it). */
final class Lexicon {

    // closed classes: the spellings of a few grammatical words
    static final WordSet MODALS = new WordSet("must", "should", "shall");
    static final WordSet NEGATED_MODALS = new WordSet("mustn't", "shouldn't", "shan't", "mustnt", "shouldnt");
    static final WordSet NEGATIONS = new WordSet("not", "never");
    static final WordSet DONT = new WordSet("don't", "dont");
    static final WordSet YOU_ARE = new WordSet("you're", "youre");
    static final WordSet COPULAS = new WordSet("is", "are", "was", "were", "isn't", "aren't");

    // open lists, which tuning extends: resources (words/*.txt)
    static final WordSet FILLERS = Words.set("fillers");
    static final WordSet SUBORDINATORS = Words.set("subordinators");
    static final WordSet ADVERBS = Words.set("adverbs");
    static final WordSet PEOPLE = Words.set("people");
    static final WordSet IMPERATIVE_VERBS = Words.set("imperative-verbs");
    static final WordSet IMPERATIVE_FOLLOWERS = Words.set("imperative-followers");
    static final WordSet NOUN_SIGNALS = Words.set("noun-signals");
    static final WordSet DETERMINERS_AND_PRONOUNS = Words.set("determiners-and-pronouns");

    private Lexicon() {
    }
}
