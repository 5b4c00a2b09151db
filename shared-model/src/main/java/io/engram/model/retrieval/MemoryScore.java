package io.engram.model.retrieval;

/**
 * The re-scoring of a retrieved memory (docs/contracts.md §E.2):
 * {@code base = (α·clamp01(cos) + β·exp(−λ_s·Δt) + γ·S) / (α + β + γ)}, with the scope weight S = 1 for the
 * same session, 0.6 for the same user, 0.3 otherwise, and the decay rate λ_s per second 1e-4 / 1e-5 / 2e-6 for
 * session / user / global scope; a summary is multiplied by its quality {@code Q = 1 − 0.5·decay_rate}.
 *
 * @param alpha weight of similarity (0.7)
 * @param beta  weight of recency (0.2)
 * @param gamma weight of scope (0.1)
 */
public record MemoryScore(double alpha, double beta, double gamma) {

    public static final MemoryScore DEFAULT = new MemoryScore(0.7, 0.2, 0.1);

    /** How close a record is to the asker. */
    public enum Scope {
        SESSION(1.0, 1e-4), USER(0.6, 1e-5), GLOBAL(0.3, 2e-6);

        private final double weight;
        private final double decayPerSecond;

        Scope(double weight, double decayPerSecond) {
            this.weight = weight;
            this.decayPerSecond = decayPerSecond;
        }

        public double weight() {
            return weight;
        }

        public double decayPerSecond() {
            return decayPerSecond;
        }

        /** Same session beats same user beats anything else; a record without session or user is global. */
        public static Scope of(String recordSession, String recordUser, String askingSession, String askingUser) {
            if (recordSession != null && recordSession.equals(askingSession)) {
                return SESSION;
            }
            if (recordUser != null && recordUser.equals(askingUser)) {
                return USER;
            }
            return GLOBAL;
        }
    }

    public MemoryScore {
        if (alpha < 0 || beta < 0 || gamma < 0 || alpha + beta + gamma <= 0) {
            throw new IllegalArgumentException("weights must be non-negative and not all zero");
        }
    }

    /**
     * @param cosine      similarity of query and record embeddings
     * @param ageSeconds  Δt, the record's age at query time (negative ages count as 0)
     * @param scope       the record's scope relative to the asker
     * @param decayRate   the record's decay rate if it is a summary, else {@code null}
     */
    public double score(double cosine, double ageSeconds, Scope scope, Double decayRate) {
        double similarity = Math.max(0, Math.min(1, cosine));
        double recency = Math.exp(-scope.decayPerSecond() * Math.max(0, ageSeconds));
        double base = (alpha * similarity + beta * recency + gamma * scope.weight()) / (alpha + beta + gamma);
        return decayRate == null ? base : base * summaryQuality(decayRate);
    }

    /** Q = 1 − 0.5·decay_rate. */
    public static double summaryQuality(double decayRate) {
        return 1 - 0.5 * decayRate;
    }
}
