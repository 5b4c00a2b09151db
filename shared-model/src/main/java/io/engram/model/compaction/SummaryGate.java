package io.engram.model.compaction;

/**
 * The preservation gate of an abstractive summary (docs/contracts.md §C.6): rejected in favour of the extractive summary
 * when {@code Q_align < τ_preserve} (0.65); otherwise its confidence is {@code λ·conf_embed + (1 − λ)·
 * conf_decoder} with λ = 0.8.
 */
public record SummaryGate(double tauPreserve, double lambda) {

    public static final SummaryGate DEFAULT = new SummaryGate(0.65, 0.8);

    /** The abstractive summary's score, or null when it must fall back to the extractive one. */
    public PreservationScore accept(PreservationScore embedding, double decoderConfidence) {
        if (embedding.qAlign() < tauPreserve) {
            return null;
        }
        return embedding.blendedWith(decoderConfidence, lambda);
    }
}
