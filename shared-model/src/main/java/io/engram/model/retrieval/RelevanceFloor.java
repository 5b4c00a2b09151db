package io.engram.model.retrieval;

/**
 * Whether a retrieved memory is related to the query at all, so a context stops before it fills its budget with
 * records nothing ties to the question (the budget is a ceiling, not a target). A memory BM25 returned shares a
 * content word with the query (stop words are not indexed) and is related; one only the vector search found is
 * related when its cosine similarity reaches {@code shareOfBest} times the best cosine among the candidates. k-NN
 * always returns k records however unrelated the store is; relative to the best, the floor holds for any
 * embedding model, whose cosines for unrelated text differ (docs/contracts.md §E.4).
 *
 * @param shareOfBest in [0, 1]; 0 keeps every candidate
 */
public record RelevanceFloor(double shareOfBest) {

    public static final RelevanceFloor NONE = new RelevanceFloor(0);

    public RelevanceFloor {
        if (shareOfBest < 0 || shareOfBest > 1) {
            throw new IllegalArgumentException("shareOfBest must be in [0, 1]: " + shareOfBest);
        }
    }

    /** The cosine below which a candidate only the vector search found is unrelated (−1, the least, for none). */
    public double minimumCosine(double bestCosine) {
        return shareOfBest == 0 ? -1 : shareOfBest * Math.max(0, bestCosine);
    }

    public boolean related(boolean lexicalMatch, double cosine, double bestCosine) {
        return lexicalMatch || cosine >= minimumCosine(bestCosine);
    }
}
