package io.engram.model.deontic;

import java.util.ArrayList;
import java.util.List;

/**
 * The rules of a node read sentence by sentence with the rule reader beside the lexer, as a {@link ReaderCombination}
 * says: a paragraph's sentences ({@link Sentences#of}), a list item's own text whole ({@link Sentences#ofItem}), the
 * units the labelled sets are scored on. Where the combination calls a sentence a rule, the lexer's rules of it stand
 * (with the model's modality when the model alone decides), or, where the lexer found none, one rule whose action is
 * the sentence. The combination is the lexer's decision step ({@link Decision}): the lexer reads each sentence, and the
 * model decides on its candidates. Thread-safe.
 */
public final class ReaderRules {

    private final DeonticLexer lexer;
    private final RuleReader reader;
    private final ReaderCombination combination;

    public ReaderRules(DeonticLexer lexer, RuleReader reader, ReaderCombination combination) {
        this.lexer = lexer;
        this.reader = reader;
        this.combination = combination;
    }

    /** The rules of a paragraph under its headings. */
    public List<Rule> paragraph(String text, SectionKind section, List<String> headingPath) {
        List<Rule> rules = new ArrayList<>();
        for (String sentence : Sentences.of(text)) {
            rules.addAll(sentence(sentence, section, headingPath));
        }
        return rules;
    }

    /** The rules of a list item under its headings: its own text, one unit. */
    public List<Rule> listItem(String text, SectionKind section, List<String> headingPath) {
        return sentence(Sentences.ofItem(text), section, headingPath);
    }

    /** The rules of one sentence: the lexer reads it, and the combination decides on its candidates. */
    public List<Rule> sentence(String sentence, SectionKind section, List<String> headingPath) {
        return lexer.rules(sentence, section, (text, candidates) -> decide(text.toString(), candidates, headingPath));
    }

    /** The model is asked only where its answer can change the outcome ("model or lexer": where the lexer found none). */
    private List<Rule> decide(String sentence, List<Rule> found, List<String> headingPath) {
        boolean lexerFound = !found.isEmpty();
        if (combination == ReaderCombination.LEXER
                || combination == ReaderCombination.MODEL_OR_LEXER && lexerFound
                || combination == ReaderCombination.MODEL_AND_LEXER && !lexerFound) {
            return found;
        }
        RuleReader.Reading reading = reader.read(sentence, headingPath);
        if (!combination.isRule(lexerFound, reading.rule())) {
            return List.of();
        }
        if (!lexerFound) {
            return List.of(new Rule(reading.modality(), sentence.replace("*", "").strip(), Trigger.RULE_READER));
        }
        if (combination != ReaderCombination.MODEL) {
            return found;
        }
        return found.stream().map(r -> new Rule(reading.modality(), r.action(), r.trigger())).toList();
    }
}
