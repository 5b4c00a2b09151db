package io.engram.model.deontic;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How the lexer's reading of a sentence and the rule reader's combine into whether the sentence is a rule, and
 * with which modality (docs/algorithms.md, "The rule reader"). Where a combination takes the lexer's modality, it
 * is the lexer's where the lexer found a rule and the model's elsewhere.
 */
public enum ReaderCombination {
    LEXER("lexer alone"),
    MODEL("model alone"),
    MODEL_WITH_LEXER_MODALITY("model decides, lexer's modality"),
    MODEL_OR_LEXER("model or lexer"),
    MODEL_AND_LEXER("model and lexer");

    private final String label;

    ReaderCombination(String label) {
        this.label = label;
    }

    /** The name the training tool writes into rule-reader.properties. */
    public String label() {
        return label;
    }

    public static ReaderCombination ofLabel(String label) {
        for (ReaderCombination c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown reader combination '" + label + "'; known: "
                + Arrays.stream(values()).map(ReaderCombination::label).collect(Collectors.joining(", ")));
    }

    /** Whether the sentence is a rule, given whether the lexer found one and whether the model reads one. */
    public boolean isRule(boolean lexerFound, boolean modelReadsRule) {
        return switch (this) {
            case LEXER -> lexerFound;
            case MODEL, MODEL_WITH_LEXER_MODALITY -> modelReadsRule;
            case MODEL_OR_LEXER -> lexerFound || modelReadsRule;
            case MODEL_AND_LEXER -> lexerFound && modelReadsRule;
        };
    }

    /** The modality of a sentence this combination calls a rule; {@code lexer} is null where the lexer found none. */
    public Modality modality(Modality lexer, Modality model) {
        return this == MODEL || lexer == null ? model : lexer;
    }
}
