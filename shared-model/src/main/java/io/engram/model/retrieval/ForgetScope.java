package io.engram.model.retrieval;

import java.util.Locale;

/**
 * What a forget removes from a tenant's memory (docs/contracts.md, "Forgetting"): one record by its store id and
 * the summaries built from it, a whole session, everything of one user, or everything of the tenant (its deletion;
 * the target is the tenant id).
 */
public enum ForgetScope {
    MEMORY, SESSION, USER, TENANT;

    /** The lower-case name in {@code forget.v1}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ForgetScope ofLabel(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
