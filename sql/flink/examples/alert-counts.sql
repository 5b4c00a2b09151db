-- How often each kind of alert fired, per tenant.
SELECT tenant_id, kind, COUNT(*) AS alerts, MAX(ts) AS last_fired
FROM collapse_alerts
GROUP BY tenant_id, kind
ORDER BY tenant_id, kind;
