package io.engram.launcher;

import io.engram.model.eval.EvidenceRecall.Retrieved;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.RecordType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** What a retriever or a context returned, as LoCoMo's evidence is matched against it. */
final class LocomoItems {

    private LocomoItems() {
    }

    /** The LoCoMo dialogue ids of the tenant's turns among {@code items}. */
    static Set<String> dialogueIds(List<ContextItem> items, String tenant) {
        Set<String> ids = new HashSet<>();
        for (Retrieved r : retrieved(items, tenant)) {
            if (!r.summary()) {
                ids.add(r.dialogueId());
            }
        }
        return ids;
    }

    static List<ContextItem> included(AssembledContext context) {
        return context.included().stream().map(AssembledContext.Included::item).toList();
    }

    /** A ranked list cut to a budget the way a naive context would: in rank order, every item that still fits. */
    static List<ContextItem> withinBudget(List<ContextItem> ranked, int budget) {
        List<ContextItem> kept = new ArrayList<>();
        int left = budget;
        for (ContextItem r : ranked) {
            if (r.tokens() <= left) {
                kept.add(r);
                left -= r.tokens();
            }
        }
        return kept;
    }

    static List<Retrieved> retrieved(List<ContextItem> items, String tenant) {
        List<Retrieved> retrieved = new ArrayList<>();
        for (ContextItem i : items) {
            if (i.type() == RecordType.SUMMARY) {
                retrieved.add(Retrieved.summary(i.text()));
            } else if (i.type() == RecordType.TURN && i.id().startsWith(tenant + "/")) {
                // turn ids are tenant/session/turn_id, and the turn id is LoCoMo's dialogue id
                retrieved.add(Retrieved.turn(i.id().substring(i.id().lastIndexOf('/') + 1), i.text()));
            }
        }
        return retrieved;
    }
}
