package io.engram.jobs.windows;

import java.util.Arrays;
import java.util.Locale;

/**
 * Where a window's vector comes from ({@code windows.vectors}): the mean of its turns' embeddings, which the job
 * embeds anyway (so a window costs no model call), or the model's embedding of the window's own text.
 */
public enum WindowVectors {
    /** The unit-length mean of its turns' embeddings ({@link io.engram.model.embed.MeanVector}). */
    TURNS,
    /** The model's embedding of its text: a second model call over every turn's text, two windows holding each. */
    MODEL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code turns} or {@code model}. */
    public static WindowVectors ofLabel(String label) {
        return Arrays.stream(values()).filter(v -> v.label().equals(label.trim())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("windows.vectors: " + label + " (use "
                        + String.join(", ", Arrays.stream(values()).map(WindowVectors::label).toList()) + ")"));
    }
}
