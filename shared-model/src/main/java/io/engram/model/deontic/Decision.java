package io.engram.model.deontic;

import java.util.List;

/**
 * The lexer's last step: which of the candidate rules its readings found in a text stand. The lexer's own keeps them
 * all; {@link ReaderRules} lets the learned rule reader decide, sentence by sentence.
 */
@FunctionalInterface
public interface Decision {

    /** Every candidate stands: the lexer alone. */
    Decision LEXER = (text, candidates) -> candidates;

    /** The rules of {@code text}, given the candidates the lexer's readings found in it, in order. */
    List<Rule> decide(CharSequence text, List<Rule> candidates);
}
