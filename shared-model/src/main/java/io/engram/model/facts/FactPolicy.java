package io.engram.model.facts;

import java.io.Serializable;
import java.util.Map;

/**
 * What the pipeline is told about memory facts: whether memories supersede one another ({@code memories.supersession};
 * off, every memory stays current unless its validity window says otherwise), and each tenant's {@link Retention}
 * (key {@link #EVERY_TENANT}: every tenant's, unless a tenant has its own).
 */
public record FactPolicy(boolean supersession, Map<String, Retention> retention) implements Serializable {

    public static final String EVERY_TENANT = "*";
    public static final FactPolicy DEFAULT = new FactPolicy(true, Map.of());

    public FactPolicy {
        retention = Map.copyOf(retention);
    }

    /** A tenant's retention: its own, else every tenant's, else none. */
    public Retention retentionOf(String tenantId) {
        return retention.getOrDefault(tenantId, retention.getOrDefault(EVERY_TENANT, Retention.NONE));
    }
}
