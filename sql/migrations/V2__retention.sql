-- Retention of the metrics history (BRIEF.md §D: 365 days). Run daily, e.g.
--   SELECT engram_purge_expired_metrics(365);
-- from cron, pg_cron or the Kubernetes CronJob in deploy/. Returns the number of rows deleted.
-- Canary sets are kept while any remaining cycle row refers to them.

CREATE FUNCTION engram_purge_expired_metrics(retention_days INTEGER) RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
  cutoff  TIMESTAMPTZ := now() - make_interval(days => retention_days);
  removed BIGINT := 0;
  n       BIGINT;
BEGIN
  IF retention_days < 1 THEN
    RAISE EXCEPTION 'retention_days must be at least 1, got %', retention_days;
  END IF;
  DELETE FROM cycle_metrics WHERE ts < cutoff;
  GET DIAGNOSTICS n = ROW_COUNT;
  removed := removed + n;
  DELETE FROM collapse_alerts WHERE ts < cutoff;
  GET DIAGNOSTICS n = ROW_COUNT;
  removed := removed + n;
  DELETE FROM canary_queries q
   WHERE q.created_at < cutoff
     AND NOT EXISTS (SELECT 1 FROM cycle_metrics m
                      WHERE m.tenant_id = q.tenant_id AND m.canary_set_id = q.canary_set_id);
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN removed + n;
END;
$$;
