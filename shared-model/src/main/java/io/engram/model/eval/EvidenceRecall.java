package io.engram.model.eval;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LoCoMo's retrieval metric: the fraction of a question's evidence turns present in what was retrieved. A turn
 * is present when its own record was retrieved, or when a retrieved extractive summary contains the turn's
 * text verbatim (an abstractive summary would need an alignment step — a turn would count when the summary
 * embeds within a threshold of it — and is not counted here).
 */
public final class EvidenceRecall {

    private static final Pattern DIALOGUE_ID = Pattern.compile("D\\d+:\\d+");

    private EvidenceRecall() {
    }

    /** Evidence ids as found in the data, with how many entries were not a single well-formed id. */
    public record Evidence(Set<String> ids, int malformed) {
    }

    /** One retrieved item: a turn (its dialogue id) or a summary (its text). */
    public record Retrieved(String dialogueId, String text, boolean summary) {
        public static Retrieved turn(String dialogueId, String text) {
            return new Retrieved(dialogueId, text, false);
        }

        public static Retrieved summary(String text) {
            return new Retrieved(null, text, true);
        }
    }

    /** Reads ids like "D1:3"; an entry such as "D8:6; D9:17" yields both ids and counts as malformed. */
    public static Evidence parse(Collection<String> raw) {
        Set<String> ids = new LinkedHashSet<>();
        int malformed = 0;
        for (String entry : raw) {
            List<String> found = new ArrayList<>();
            Matcher m = DIALOGUE_ID.matcher(entry == null ? "" : entry);
            while (m.find()) {
                found.add(m.group());
            }
            if (found.size() != 1 || !found.get(0).equals(entry.strip())) {
                malformed++;
            }
            ids.addAll(found);
        }
        return new Evidence(ids, malformed);
    }

    /** Fraction of {@code evidence} present in {@code retrieved}; {@code turnTexts} maps dialogue id to text. */
    public static double recall(Set<String> evidence, Collection<Retrieved> retrieved, Map<String, String> turnTexts) {
        return (evidence.size() - missing(evidence, retrieved, turnTexts).size()) / (double) evidence.size();
    }

    /** The ids of {@code evidence} not present in {@code retrieved}, in evidence order. */
    public static Set<String> missing(Set<String> evidence, Collection<Retrieved> retrieved, Map<String, String> turnTexts) {
        if (evidence.isEmpty()) {
            throw new IllegalArgumentException("no evidence to recall");
        }
        Set<String> missing = new LinkedHashSet<>();
        for (String id : evidence) {
            if (!present(id, retrieved, turnTexts.get(id))) {
                missing.add(id);
            }
        }
        return missing;
    }

    private static boolean present(String id, Collection<Retrieved> retrieved, String text) {
        for (Retrieved r : retrieved) {
            if (!r.summary() && id.equals(r.dialogueId())) {
                return true;
            }
            if (r.summary() && text != null && !text.isEmpty() && r.text().contains(text)) {
                return true;
            }
        }
        return false;
    }
}
