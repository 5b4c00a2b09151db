package io.engram.model.retrieval;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Spreads a context over sessions: in rank order, a hit's score is multiplied by {@code decay^n}, n being how many
 * better-ranked hits came from its session, so that the third hit of one session competes with the first of
 * another. A question whose evidence was told over several sessions ("what activities does she do?") is
 * answered by one turn from each, and a session that matches the question well otherwise fills the budget with
 * its turns alone. Hits without a session are not reweighted.
 *
 * @param decay in (0, 1]; 1 leaves every score as it is
 */
public record SessionDiversity(double decay) {

    public static final SessionDiversity NONE = new SessionDiversity(1);

    public SessionDiversity {
        if (!(decay > 0) || decay > 1) {
            throw new IllegalArgumentException("decay must be in (0, 1]: " + decay);
        }
    }

    /**
     * @param sessions the hits' sessions (null for none), best-ranked first
     * @param scores   their scores, in the same order
     * @return the reweighted scores, in the same order
     */
    public double[] scores(List<String> sessions, double[] scores) {
        if (sessions.size() != scores.length) {
            throw new IllegalArgumentException(sessions.size() + " sessions for " + scores.length + " scores");
        }
        double[] spread = scores.clone();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < spread.length; i++) {
            String session = sessions.get(i);
            if (session != null) {
                spread[i] *= Math.pow(decay, seen.merge(session, 1, Integer::sum) - 1);
            }
        }
        return spread;
    }
}
