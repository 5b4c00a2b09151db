package io.engram.model.compaction;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The merge information floor (docs/contracts.md §C.7): a merge must not lose provenance — its source
 * refs contain every participant and every participant's refs — and must keep specificity: distinct tokens of
 * the merged text ≥ {@code minRetention} (0.6) × distinct tokens of the participants' texts together, tokens
 * being the lower-case whitespace split. Evaluated on every merge; a violation is counted, not blocking.
 */
public record MergeInformationFloor(double minRetention) {

    public static final MergeInformationFloor DEFAULT = new MergeInformationFloor(0.6);

    /** One participant of a merge. */
    public record Participant(String ref, String text, List<String> sourceRefs) {
    }

    /** The check's outcome. */
    public record Result(boolean passed, int provenanceBefore, int provenanceAfter, double specificityRetention,
                         String reason) {
    }

    public Result check(String mergedText, List<String> mergedSourceRefs, List<Participant> participants) {
        Set<String> required = new HashSet<>();
        Set<String> sourceTokens = new HashSet<>();
        for (Participant p : participants) {
            required.add(p.ref());
            required.addAll(p.sourceRefs());
            sourceTokens.addAll(tokens(p.text()));
        }
        Set<String> after = new HashSet<>(mergedSourceRefs);
        boolean provenance = after.containsAll(required);
        double retention = sourceTokens.isEmpty() ? 1 : tokens(mergedText).size() / (double) sourceTokens.size();
        boolean specific = retention >= minRetention;
        String reason = provenance && specific ? null
                : !provenance ? "merged source_refs lose " + (required.size() - intersect(required, after)) + " refs"
                : String.format(Locale.ROOT, "distinct-token retention %.3f below %.2f", retention, minRetention);
        return new Result(provenance && specific, required.size(), after.size(), retention, reason);
    }

    private static int intersect(Set<String> a, Set<String> b) {
        int n = 0;
        for (String s : a) {
            if (b.contains(s)) {
                n++;
            }
        }
        return n;
    }

    static Set<String> tokens(String text) {
        Set<String> tokens = new HashSet<>();
        for (String t : text.toLowerCase(Locale.ROOT).split("\\s+")) {
            if (!t.isEmpty()) {
                tokens.add(t);
            }
        }
        return tokens;
    }
}
