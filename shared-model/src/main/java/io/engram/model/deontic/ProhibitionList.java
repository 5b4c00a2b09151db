package io.engram.model.deontic;

/**
 * The prohibition-list reading: under a heading that is a prohibition ("## Never", "## Do Not", "## What I will not
 * do", {@link SectionKind#PROHIBITIONS}) each instruction names what not to do ("Add minor or major changesets" → F).
 */
final class ProhibitionList {

    private ProhibitionList() {
    }

    /** Makes the clause's imperatives prohibitions, under a prohibition heading. */
    static void read(Clause c, ClauseRules found) {
        if (c.section() != SectionKind.PROHIBITIONS) {
            return;
        }
        for (int r = 0; r < found.size(); r++) {
            Rule rule = found.get(r);
            if (rule.modality() == Modality.OBLIGATORY && rule.trigger() == Trigger.IMPERATIVE) {
                found.set(r, new Rule(Modality.FORBIDDEN, rule.action(), Trigger.PROHIBITION_HEADING));
            }
        }
    }
}
