package io.engram.model.retrieval;

import java.util.Map;

/**
 * The turns around a retrieved turn as candidates of their own (docs/contracts.md §E.4): a turn within
 * {@code radius} of a retrieved turn of its session scores {@code weight^distance} times that turn's score, the
 * best if it is near several. An answer is often the turn after the one that matches the question, and a fact
 * told over two turns is whole only with both.
 *
 * @param radius how far from a retrieved turn, in turns (0: no neighbours)
 * @param weight in (0, 1], the score kept per turn of distance
 */
public record NeighbourTurns(int radius, double weight) {

    public static final NeighbourTurns NONE = new NeighbourTurns(0, 1);

    public NeighbourTurns {
        if (radius < 0 || !(weight > 0) || weight > 1) {
            throw new IllegalArgumentException("radius must not be negative and weight in (0, 1]: " + radius + ", " + weight);
        }
    }

    /**
     * The score of the turn at {@code position}, given the scores of the retrieved turns of its session by
     * position; 0 when none is within the radius (the retrieved turn itself is not its own neighbour).
     */
    public double score(int position, Map<Integer, Double> retrievedScoresByPosition) {
        double best = 0;
        for (Map.Entry<Integer, Double> hit : retrievedScoresByPosition.entrySet()) {
            int distance = Math.abs(hit.getKey() - position);
            if (distance > 0 && distance <= radius) {
                best = Math.max(best, hit.getValue() * Math.pow(weight, distance));
            }
        }
        return best;
    }
}
