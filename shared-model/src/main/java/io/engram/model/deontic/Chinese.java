package io.engram.model.deontic;

import static io.engram.model.deontic.Modality.FORBIDDEN;
import static io.engram.model.deontic.Modality.OBLIGATORY;
import static io.engram.model.deontic.Modality.PERMITTED;

/**
 * The Chinese reading, for a clause that holds Han characters: "你必须 / 应该 / 需要" (O), "你不要 / 不能 / 不得",
 * clause-initial "不要 / 别 / 禁止 / 不 + verb" (F; "不是", "不只" describe), clause-initial "你可以 / 能" (P),
 * "你是 …" (O identity), "你不是 …" (F identity), and clause-initial "务必 / 必须 / 确保 / 记住 / 始终 …" (O). A
 * leading "请" (please) is skipped. Chinese has no spaces, so the readings match character prefixes.
 */
final class Chinese {

    private static final String[] FORBIDDEN_OPENERS = Words.list("chinese/forbidden-openers");
    private static final String[] NOT_A_RULE_AFTER_NOT = Words.list("chinese/not-a-rule-after-not");
    private static final String[] OBLIGATORY_OPENERS = Words.list("chinese/obligatory-openers");
    private static final String[] FORBIDDEN_MODALS = Words.list("chinese/forbidden-modals");
    private static final String[] OBLIGATORY_MODALS = Words.list("chinese/obligatory-modals");
    private static final String[] PERMITTED_MODALS = Words.list("chinese/permitted-modals");
    private static final String[] ADVERBS = Words.list("chinese/adverbs");

    private Chinese() {
    }

    static void read(Clause c, ClauseRules found) {
        int p = c.start();
        while (p < c.end() && !Character.isLetterOrDigit(c.charAt(p))) {
            p++;
        }
        if (c.startsWith(p, "请")) {
            p++;
        }
        opening(c, p, found);
        for (int q = p; q < c.end(); q++) {
            if (c.charAt(q) == '你') {
                you(c, q, q == p, found);
            }
        }
    }

    /** "不要 …", "不 + verb", "务必 …" opening the clause at {@code p}. */
    private static void opening(Clause c, int p, ClauseRules found) {
        int opener = matchAny(c, p, FORBIDDEN_OPENERS);
        if (opener > 0) {
            found.addFrom(FORBIDDEN, p + opener, 1, Trigger.CHINESE_MODAL);
        } else if (c.startsWith(p, "不") && matchAny(c, p + 1, NOT_A_RULE_AFTER_NOT) == 0) {
            found.addFrom(FORBIDDEN, p + 1, 1, Trigger.CHINESE_MODAL);
        } else if ((opener = matchAny(c, p, OBLIGATORY_OPENERS)) > 0) {
            found.addFrom(OBLIGATORY, p + opener, 1, Trigger.CHINESE_MODAL);
        }
    }

    /** What follows the "你" at {@code q}, which opens the clause if {@code initial}. */
    private static void you(Clause c, int q, boolean initial, ClauseRules found) {
        int r = q + 1;
        int adverb;
        while ((adverb = matchAny(c, r, ADVERBS)) > 0) {
            r += adverb;
        }
        int len;
        if (initial && c.startsWith(r, "不是")) {
            found.addFrom(FORBIDDEN, r + 1, 2, Trigger.CHINESE_YOU_ARE);
        } else if (initial && c.startsWith(r, "是")) {
            found.addFrom(OBLIGATORY, r, 2, Trigger.CHINESE_YOU_ARE);
        } else if ((len = matchAny(c, r, FORBIDDEN_MODALS)) > 0) {
            found.addFrom(FORBIDDEN, r + len, 1, Trigger.CHINESE_MODAL);
        } else if ((len = matchAny(c, r, OBLIGATORY_MODALS)) > 0) {
            found.addFrom(OBLIGATORY, r + len, 1, Trigger.CHINESE_MODAL);
        } else if (initial && (len = matchAny(c, r, PERMITTED_MODALS)) > 0) {
            found.addFrom(PERMITTED, r + len, 1, Trigger.CHINESE_MODAL);
        }
    }

    /** Length of the first of {@code candidates} (longest first) found at {@code at}, or 0. */
    private static int matchAny(Clause c, int at, String[] candidates) {
        for (String candidate : candidates) {
            if (c.startsWith(at, candidate)) {
                return candidate.length();
            }
        }
        return 0;
    }
}
