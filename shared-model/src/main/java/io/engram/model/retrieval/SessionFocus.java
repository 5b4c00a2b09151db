package io.engram.model.retrieval;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Session-first retrieval, as a weight rather than a filter: a session's mass is the sum of its hits' scores,
 * and a hit's score becomes {@code score · (1 − w + w · mass(session) / max mass)}, so the turns of the sessions
 * the question is about (several hits each) rank above lone hits elsewhere. Hits without a session keep their
 * score.
 *
 * @param weight w in [0, 1]; 0 leaves every score as it is
 */
public record SessionFocus(double weight) {

    public static final SessionFocus NONE = new SessionFocus(0);

    public SessionFocus {
        if (weight < 0 || weight > 1) {
            throw new IllegalArgumentException("weight must be in [0, 1]: " + weight);
        }
    }

    /**
     * @param sessions the hits' sessions (null for none)
     * @param scores   their scores, in the same order
     * @return the reweighted scores, in the same order
     */
    public double[] scores(List<String> sessions, double[] scores) {
        if (sessions.size() != scores.length) {
            throw new IllegalArgumentException(sessions.size() + " sessions for " + scores.length + " scores");
        }
        Map<String, Double> mass = new HashMap<>();
        for (int i = 0; i < scores.length; i++) {
            if (sessions.get(i) != null) {
                mass.merge(sessions.get(i), scores[i], Double::sum);
            }
        }
        double most = mass.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        double[] focused = scores.clone();
        for (int i = 0; i < focused.length; i++) {
            if (sessions.get(i) != null && most > 0) {
                focused[i] *= 1 - weight + weight * mass.get(sessions.get(i)) / most;
            }
        }
        return focused;
    }
}
