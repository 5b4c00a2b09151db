-- `./engram status` reads each tenant's alerts of its newest cycle by one probe of (tenant_id, ts), so its open
-- alerts cost one probe per tenant however many cycles and alerts the tenant has kept.
CREATE INDEX collapse_alerts_tenant_ts ON collapse_alerts (tenant_id, ts);
