package io.engram.model.deontic;

/**
 * What the clause before a clause makes of it, when that one ended at a colon ({@link Labels#after}).
 *
 * @param labelled     the modality of a rule label before it ("Never:", "FORBIDDEN:"), or null
 * @param labelWords   the words of a label of words only that opens its sentence ("Line length:"), or 0
 * @param valueOfLabel the clause before it opens its sentence and ends at a colon, of any words: this is its value
 * @param definesCode  the clause before it is only code ("`make lint`:"): this one defines it
 * @param labelRead    the clause before it holds rules of its own ("Run the checks:")
 */
record Context(Modality labelled, int labelWords, boolean valueOfLabel, boolean definesCode, boolean labelRead) {

    /** After a clause that did not end at a colon, or at the start of the text. */
    static final Context NONE = new Context(null, 0, false, false, false);
    /** The most words of a label whose value can be a convention: "Line length:", "Coverage:". */
    static final int VALUE_LABEL_WORDS = 4;
    /** The most words of a command's caption: "**Run with JavaScript exception scope verification**: `…`". */
    static final int COMMAND_CAPTION_WORDS = 8;

    /** The clause is a short label's value: "Line length: 120 chars maximum". */
    boolean labelValue() {
        return labelWords > 0 && labelWords <= VALUE_LABEL_WORDS;
    }

    /** The clause follows a caption: "**Run all checks**: `pre-commit run --all-files`". */
    boolean captionValue() {
        return labelWords > 0 && labelWords <= COMMAND_CAPTION_WORDS;
    }
}
