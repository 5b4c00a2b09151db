package io.engram.model.deontic;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Axiom D (seriality) over one document: no action may be both obligatory and forbidden. Actions are compared
 * by a normalised key (lower case, function words dropped, crude suffix stripping) so that "Always use tabs"
 * and "Avoid using tabs" name the same action.
 */
public final class SerialityCheck {

    private static final List<String> FUNCTION_WORDS = List.of(
            "the", "a", "an", "to", "of", "any", "all", "your", "this", "that", "these", "those", "it", "its",
            "always", "never", "ever", "please");

    private SerialityCheck() {
    }

    /** Conflicts among the rules of a document's nodes ({@code rulesByNode.get(i)} are node i's rules). */
    public static List<SerialityConflict> conflicts(List<? extends List<Rule>> rulesByNode) {
        StringBuilder key = new StringBuilder();
        Map<String, Integer> firstForbidden = firstForbidden(rulesByNode, key);
        List<SerialityConflict> conflicts = new ArrayList<>();
        if (firstForbidden.isEmpty()) {
            return conflicts;
        }
        // Most obligations share no two leading words with any prohibition: key two words before keying them all.
        Set<Integer> forbiddenPrefixes = new HashSet<>();
        Set<Integer> forbiddenHashes = new HashSet<>();
        for (String k : firstForbidden.keySet()) {
            int first = k.indexOf(' ');
            int second = first < 0 ? -1 : k.indexOf(' ', first + 1);
            forbiddenPrefixes.add(hashOf(second < 0 ? k : k.substring(0, second)));
            forbiddenHashes.add(k.hashCode());
        }
        Set<String> reported = new HashSet<>();
        for (int node = 0; node < rulesByNode.size(); node++) {
            for (Rule rule : rulesByNode.get(node)) {
                if (rule.modality() != Modality.OBLIGATORY) {
                    continue;
                }
                appendKey(rule.action(), key, 2);
                if (!forbiddenPrefixes.contains(hashOf(key))) {
                    continue;
                }
                appendKey(rule.action(), key, Integer.MAX_VALUE);
                if (!forbiddenHashes.contains(hashOf(key))) {
                    continue;
                }
                String k = key.toString();
                Integer forbidden = firstForbidden.get(k);
                if (forbidden != null && reported.add(k)) {
                    conflicts.add(new SerialityConflict(rule.action(), node, forbidden));
                }
            }
        }
        return conflicts;
    }

    /**
     * The key of each forbidden action, with the first node that forbids it. Prohibitions are the rarer side: they
     * are keyed first, then each obligation's key is looked up in {@code key}, a buffer that is reused, so only a
     * match builds a string.
     */
    private static Map<String, Integer> firstForbidden(List<? extends List<Rule>> rulesByNode, StringBuilder key) {
        Map<String, Integer> firstForbidden = new LinkedHashMap<>();
        for (int node = 0; node < rulesByNode.size(); node++) {
            for (Rule rule : rulesByNode.get(node)) {
                if (rule.modality() == Modality.FORBIDDEN) {
                    appendKey(rule.action(), key, Integer.MAX_VALUE);
                    if (key.length() > 0) {
                        firstForbidden.putIfAbsent(key.toString(), node);
                    }
                }
            }
        }
        return firstForbidden;
    }

    /** The comparison key of an action phrase. */
    static String actionKey(String action) {
        StringBuilder key = new StringBuilder();
        appendKey(action, key, Integer.MAX_VALUE);
        return key.toString();
    }

    /**
     * Writes the key of {@code action} into {@code key} (cleared first): the lower-case stems of its first
     * {@code maxWords} content words.
     */
    private static void appendKey(String action, StringBuilder key, int maxWords) {
        key.setLength(0);
        int i = 0;
        int n = action.length();
        int words = 0;
        while (i < n && words < maxWords) {
            while (i < n && !Character.isLetterOrDigit(action.charAt(i))) {
                i++;
            }
            int wordStart = key.length() == 0 ? 0 : key.length() + 1;
            if (i < n && key.length() > 0) {
                key.append(' ');
            }
            while (i < n && Character.isLetterOrDigit(action.charAt(i))) {
                key.append(Character.toLowerCase(action.charAt(i)));
                i++;
            }
            int wordEnd = key.length();
            if (wordEnd <= wordStart || isFunctionWord(key, wordStart, wordEnd)) {
                key.setLength(Math.max(0, wordStart - 1)); // drop the word and its separator
            } else {
                key.setLength(wordStart + stemLength(key, wordStart, wordEnd));
                words++;
            }
        }
    }

    private static boolean isFunctionWord(CharSequence key, int start, int end) {
        int len = end - start;
        if (len > 6) {
            return false; // no function word is longer: skip the comparisons for most content words
        }
        for (String word : FUNCTION_WORDS) {
            if (word.length() == len && regionEquals(key, start, word)) {
                return true;
            }
        }
        return false;
    }

    private static boolean regionEquals(CharSequence key, int start, String word) {
        for (int i = 0; i < word.length(); i++) {
            if (key.charAt(start + i) != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** String.hashCode of the builder's contents, without building the string. */
    private static int hashOf(CharSequence s) {
        int h = 0;
        for (int i = 0; i < s.length(); i++) {
            h = 31 * h + s.charAt(i);
        }
        return h;
    }

    /** Length of the crude stem of {@code key[start, end)}: -ing, -ed, -s, then a final e, removed. */
    private static int stemLength(CharSequence key, int start, int end) {
        int len = end - start;
        if (len >= 5 && endsWith(key, end, "ing")) {
            len -= 3;
        } else if (len > 4 && endsWith(key, end, "ed")) {
            len -= 2;
        } else if (len > 3 && key.charAt(end - 1) == 's' && key.charAt(end - 2) != 's') {
            len -= 1;
        }
        return len > 2 && key.charAt(start + len - 1) == 'e' ? len - 1 : len;
    }

    private static boolean endsWith(CharSequence key, int end, String suffix) {
        for (int i = 0; i < suffix.length(); i++) {
            if (key.charAt(end - suffix.length() + i) != suffix.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
