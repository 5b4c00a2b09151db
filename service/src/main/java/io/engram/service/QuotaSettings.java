package io.engram.service;

/**
 * The service's quota settings ({@link ServiceConfig#quotas}): the quotas of a tenant not given its own, how many
 * seconds of its rate a tenant may spend at once, and whether usage is metered (and the records and bytes quotas
 * enforced, which read it).
 */
public record QuotaSettings(TenantStore.Quotas defaults, double burstSeconds, boolean metering) {

    /** The requests a tenant may make at once at {@code perSecond}. */
    int burst(double perSecond) {
        return (int) Math.max(1, Math.ceil(perSecond * burstSeconds));
    }
}
