package io.engram.model.deontic;

/**
 * The labelled-rule reading, and what a label before a colon makes of the clause after it. A rule label of one or
 * two words gives the clause its modality ("FORBIDDEN: `uv pip install`", "Never: edit generated files"); a code
 * term's value defines it ("`make lint`: run the linters"); under a commands heading a caption's value names its
 * command; and a value that says what the label names ("**Continue SDK Integration**: Initializes …") shows that
 * the label was a name, not an instruction.
 */
final class Labels {

    private static final WordSet FORBIDDING = Words.set("labels/forbidding");
    private static final WordSet OBLIGING = Words.set("labels/obliging");
    private static final WordSet EXPLAINING = Words.set("labels/explaining");
    private static final WordSet BACK_REFERENCES = new WordSet("this", "it", "these");

    private Labels() {
    }

    /**
     * What {@code previous} (null at the text's start) makes of the clause after it. {@code openedAfter} is the
     * mark that ended the last clause with tokens before {@code previous} (0 at the text's start), and
     * {@code previousFound} whether {@code previous} holds rules.
     */
    static Context after(Clause previous, char openedAfter, boolean previousFound) {
        if (previous == null || previous.boundary() != ':') {
            return Context.NONE;
        }
        boolean opensSentence = previous.count() > 0 && (openedAfter == 0 || openedAfter == '.' || openedAfter == '!'
                || openedAfter == '?' || openedAfter == '\n');
        int labelWords = opensSentence && !previous.in(EXPLAINING, 0) && previous.onlyWords() ? previous.count() : 0;
        return new Context(ruleLabel(previous), labelWords, opensSentence, previous.onlyCode(), previousFound);
    }

    /** The modality a label clause of one or two words before a colon gives the next clause, or null. */
    private static Modality ruleLabel(Clause label) {
        int count = label.count();
        if (count == 0 || count > 2 || !label.isWord(count - 1)) {
            return null;
        }
        if (label.in(FORBIDDING, count - 1) || (count == 2 && label.is(0, "do") && label.is(1, "not"))) {
            return Modality.FORBIDDEN;
        }
        return label.in(OBLIGING, count - 1) ? Modality.OBLIGATORY : null;
    }

    /**
     * "`make lint`: run the linters" defines the command, and holds no rule; "**`adk-git`**: Use this skill for
     * any git operation" instructs: an imperative whose object points back at the code term.
     */
    static boolean definesCode(Clause clause) {
        if (!clause.context().definesCode()) {
            return false;
        }
        int w = clause.skipFillers(0);
        return !(Grammar.verb(clause, w) && clause.in(BACK_REFERENCES, w + 1));
    }

    /** Under "Development Commands", "**Run all checks**: `pre-commit run --all-files`" names a command. */
    static boolean commandCaption(Clause clause) {
        return clause.section() == SectionKind.COMMANDS && clause.context().captionValue() && clause.isCode(0);
    }

    /**
     * "**Continue SDK Integration** (`src/continueSDK.ts`): Initializes the client with:" says what the label
     * names, so the label is a component's name and not an instruction to continue.
     */
    static boolean describingValue(Clause clause) {
        return clause.context().valueOfLabel() && Grammar.describes(clause, clause.skipFillers(0));
    }

    /**
     * After a rule label the clause is a rule of the label's modality: what a reading found in it, made a
     * prohibition by a prohibition label ("Never: edit generated files"), or else the whole clause
     * ("FORBIDDEN: `uv pip install`").
     */
    static void readLabelled(Clause clause, ClauseRules found) {
        Modality labelled = clause.context().labelled();
        if (labelled == null) {
            return;
        }
        if (found.isEmpty()) {
            found.add(labelled, 0, Trigger.LABEL);
        } else if (labelled == Modality.FORBIDDEN) {
            found.set(0, new Rule(Modality.FORBIDDEN, found.get(0).action(), Trigger.LABEL));
        }
    }
}
