package io.engram.model.eval;

import java.util.EnumMap;
import java.util.Map;

/**
 * Where an evidence turn missing from an assembled context was lost, in the order a context is made: the
 * retrievers' deep lists, the candidates cut from them (how many compete, the relevance floor), the budget those
 * candidates compete for, and the neighbouring turns that compete with them. A question's missing turns each weigh
 * {@code 1 / |evidence|}, so that over the same questions recall plus the buckets' shares is 1.
 */
public final class EvidenceLoss {

    /** The stage that lost a turn. */
    public enum Bucket {
        /** No retriever returned it within its deep list, and no retrieved turn brought it as a neighbour. */
        NOT_RETRIEVED,
        /** A retriever returned it, below the candidates that compete for the budget (or under the relevance floor). */
        BELOW_CUT,
        /** It competed for the budget and lost to higher-scored items, neighbours aside. */
        CUT_BY_BUDGET,
        /** It competed, and the same context without neighbouring turns holds it: neighbours took its place. */
        DISPLACED_BY_NEIGHBOURS
    }

    private EvidenceLoss() {
    }

    /**
     * @param retrieved                  a retriever's deep list holds the turn
     * @param competed                   the assembly weighed it (included or left out for the budget)
     * @param inContextWithoutNeighbours the same request assembled without neighbouring turns holds it
     */
    public static Bucket of(boolean retrieved, boolean competed, boolean inContextWithoutNeighbours) {
        if (competed) {
            return inContextWithoutNeighbours ? Bucket.DISPLACED_BY_NEIGHBOURS : Bucket.CUT_BY_BUDGET;
        }
        return retrieved ? Bucket.BELOW_CUT : Bucket.NOT_RETRIEVED;
    }

    /** The mean share of evidence each bucket lost, over the questions added. Not thread-safe. */
    public static final class Tally {
        private final Map<Bucket, Double> sums = new EnumMap<>(Bucket.class);
        private int questions;

        /** One question with {@code evidence} turns, the buckets of those it missed. */
        public void add(int evidence, Iterable<Bucket> lost) {
            if (evidence < 1) {
                throw new IllegalArgumentException("a question needs evidence: " + evidence);
            }
            questions++;
            for (Bucket b : lost) {
                sums.merge(b, 1.0 / evidence, Double::sum);
            }
        }

        public int questions() {
            return questions;
        }

        /** The mean share of a question's evidence lost in {@code bucket}; 0 before any question. */
        public double share(Bucket bucket) {
            return questions == 0 ? 0 : sums.getOrDefault(bucket, 0.0) / questions;
        }
    }
}
