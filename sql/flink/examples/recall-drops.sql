-- Tenants whose canary recall dropped by more than 0.15 within the last 7 days: the best recall of the
-- window against the latest, within one canary set (rows of different sets are not comparable).
SELECT w.tenant_id, w.canary_set_id, ROUND(w.best_recall, 3) AS best_recall,
       ROUND(l.mean_recall, 3) AS latest_recall, ROUND(w.best_recall - l.mean_recall, 3) AS drop_by
FROM (
  SELECT tenant_id, canary_set_id, MAX(mean_recall) AS best_recall, MAX(ts) AS latest_ts
  FROM cycle_metrics
  WHERE ts >= CAST(CURRENT_TIMESTAMP AS TIMESTAMP(6)) - INTERVAL '7' DAY
  GROUP BY tenant_id, canary_set_id
) w
JOIN cycle_metrics l
  ON l.tenant_id = w.tenant_id AND l.canary_set_id = w.canary_set_id AND l.ts = w.latest_ts
WHERE w.best_recall - l.mean_recall > 0.15
ORDER BY drop_by DESC, w.tenant_id;
