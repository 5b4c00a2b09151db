package io.engram.model.deontic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Axiom D (seriality) over one document: no action may be both obligatory and forbidden. Actions are compared
 * by a normalised key (lower case, function words dropped, crude suffix stripping) so that "Always use tabs"
 * and "Avoid using tabs" name the same action.
 */
public final class SerialityCheck {

    private static final Set<String> FUNCTION_WORDS = Set.of(
            "the", "a", "an", "to", "of", "any", "all", "your", "this", "that", "these", "those", "it", "its",
            "always", "never", "ever", "please");

    private SerialityCheck() {
    }

    /** Conflicts among the rules of a document's nodes ({@code rulesByNode.get(i)} are node i's rules). */
    public static List<SerialityConflict> conflicts(List<? extends List<Rule>> rulesByNode) {
        Map<String, Integer> firstObligatory = new LinkedHashMap<>();
        Map<String, Integer> firstForbidden = new LinkedHashMap<>();
        Map<String, String> actionOf = new LinkedHashMap<>();
        for (int node = 0; node < rulesByNode.size(); node++) {
            for (Rule rule : rulesByNode.get(node)) {
                String key = actionKey(rule.action());
                if (key.isEmpty()) {
                    continue;
                }
                actionOf.putIfAbsent(key, rule.action());
                if (rule.modality() == Modality.OBLIGATORY) {
                    firstObligatory.putIfAbsent(key, node);
                } else if (rule.modality() == Modality.FORBIDDEN) {
                    firstForbidden.putIfAbsent(key, node);
                }
            }
        }
        List<SerialityConflict> conflicts = new ArrayList<>();
        for (Map.Entry<String, Integer> o : firstObligatory.entrySet()) {
            Integer f = firstForbidden.get(o.getKey());
            if (f != null) {
                conflicts.add(new SerialityConflict(actionOf.get(o.getKey()), o.getValue(), f));
            }
        }
        return conflicts;
    }

    /** The comparison key of an action phrase. */
    static String actionKey(String action) {
        StringBuilder key = new StringBuilder();
        for (String word : action.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (word.isEmpty() || FUNCTION_WORDS.contains(word)) {
                continue;
            }
            if (key.length() > 0) {
                key.append(' ');
            }
            key.append(stem(word));
        }
        return key.toString();
    }

    private static String stem(String word) {
        String w = word;
        if (w.length() >= 5 && w.endsWith("ing")) {
            w = w.substring(0, w.length() - 3);
        } else if (w.length() > 4 && w.endsWith("ed")) {
            w = w.substring(0, w.length() - 2);
        } else if (w.length() > 3 && w.endsWith("s") && !w.endsWith("ss")) {
            w = w.substring(0, w.length() - 1);
        }
        return w.length() > 2 && w.endsWith("e") ? w.substring(0, w.length() - 1) : w;
    }
}
