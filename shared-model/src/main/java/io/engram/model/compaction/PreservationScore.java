package io.engram.model.compaction;

import io.engram.model.embed.Vectors;
import java.util.List;

/**
 * How much of its sources a summary preserves, measured in the embedding space (docs/contracts.md
 * §C.5): {@code Q_align = cos(E(s), mean_i E(t_i))}, {@code Q_cover = mean_i max(0, cos(E(s),
 * E(t_i)))}, {@code conf = clamp01((Q_align + Q_cover) / 2)}, {@code decay_rate = 1 − conf}.
 */
public record PreservationScore(double qAlign, double qCover, double confidence, double decayRate) {

    public static PreservationScore of(float[] summary, List<float[]> sources) {
        if (sources.isEmpty()) {
            throw new IllegalArgumentException("a summary needs sources");
        }
        float[] mean = new float[summary.length];
        double cover = 0;
        for (float[] source : sources) {
            for (int i = 0; i < mean.length; i++) {
                mean[i] += source[i] / sources.size();
            }
            cover += Math.max(0, Vectors.cosine(summary, source));
        }
        double align = Vectors.cosine(summary, mean);
        return fromParts(align, cover / sources.size());
    }

    static PreservationScore fromParts(double qAlign, double qCover) {
        double confidence = Math.max(0, Math.min(1, (qAlign + qCover) / 2));
        return new PreservationScore(qAlign, qCover, confidence, 1 - confidence);
    }

    /**
     * Blends an abstractive summary's embedding confidence with its decoder's own confidence:
     * {@code conf = λ·conf_embed + (1 − λ)·conf_decoder}, λ = 0.8 by default.
     */
    public PreservationScore blendedWith(double decoderConfidence, double lambda) {
        double confidence = Math.max(0, Math.min(1, lambda * this.confidence + (1 - lambda) * decoderConfidence));
        return new PreservationScore(qAlign, qCover, confidence, 1 - confidence);
    }
}
