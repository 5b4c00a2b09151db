package io.engram.jobs.windows;

import io.engram.model.embed.MeanVector;
import java.util.Arrays;
import java.util.Locale;

/**
 * Where a window's vector comes from ({@code windows.vectors}): the mean of its turns' embeddings, which the job
 * embeds anyway (so a window costs no model call), or the model's embedding of the window's own text.
 */
public enum WindowVectors {
    /** The unit-length mean of its turns' embeddings, each the same. */
    TURNS(MeanVector.Weighting.EQUAL),
    /** The unit-length mean of its turns' embeddings, each by its tokens. */
    TURN_TOKENS(MeanVector.Weighting.TOKENS),
    /** The model's embedding of its text: a second model call for every turn's text, two windows holding each. */
    MODEL(null);

    private final MeanVector.Weighting weighting;

    WindowVectors(MeanVector.Weighting weighting) {
        this.weighting = weighting;
    }

    /** How its turns' embeddings count; null for {@link #MODEL}. */
    public MeanVector.Weighting weighting() {
        return weighting;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code turns}, {@code turn-tokens} or {@code model}. */
    public static WindowVectors ofLabel(String label) {
        return Arrays.stream(values()).filter(v -> v.label().equals(label.trim())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("windows.vectors: " + label + " (use "
                        + String.join(", ", Arrays.stream(values()).map(WindowVectors::label).toList()) + ")"));
    }
}
