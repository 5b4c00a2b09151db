package io.engram.service;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a key may do for its tenant (docs/operations.md, "Tenants, keys and quotas"): read its memory, write to it,
 * forget from it, and administer it (its keys; for an operator key, every tenant). Each route needs one.
 */
enum Scope {
    READ, WRITE, FORGET, ADMIN;

    /** A tenant key of the key file or {@code ENGRAM_API_KEYS} without scopes: all it could do before scopes. */
    static final Set<Scope> TENANT_DEFAULT = Set.copyOf(EnumSet.of(READ, WRITE, FORGET));

    /** 403 {@code insufficient_scope} unless {@code scopes} hold {@code needed}. */
    static void require(Set<Scope> scopes, Scope needed) throws ApiError {
        if (!scopes.contains(needed)) {
            throw new ApiError(403, "insufficient_scope", "this API key may not " + needed.label()
                    + " (its scopes: " + labels(scopes) + ")");
        }
    }

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Scopes from their labels, separated by commas or, in a key file's grant, {@code +}; an unknown label is an error. */
    static Set<Scope> parse(String labels) {
        Set<Scope> scopes = EnumSet.noneOf(Scope.class);
        for (String label : labels.split("[,+]")) {
            String name = label.strip().toUpperCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            try {
                scopes.add(valueOf(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown scope '" + label.strip() + "' (read, write, forget, admin)");
            }
        }
        if (scopes.isEmpty()) {
            throw new IllegalArgumentException("a key needs at least one scope (read, write, forget, admin)");
        }
        return Set.copyOf(scopes);
    }

    static String labels(Set<Scope> scopes) {
        return EnumSet.copyOf(scopes).stream().map(Scope::label).collect(Collectors.joining(","));
    }
}
