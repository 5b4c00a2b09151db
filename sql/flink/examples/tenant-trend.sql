-- The trend of one tenant: every cycle, oldest first, with its recall, shape and alerts.
-- Replace 'acme' with the tenant you look at.
SELECT cycle_id, ts, canary_set_id, ROUND(mean_recall, 3) AS recall, ROUND(mean_ndcg, 3) AS ndcg,
       store_total, ROUND(distinct_content_ratio, 3) AS distinct_ratio,
       ROUND(mean_bigram_diversity, 3) AS bigram_diversity, accepted_actions, alerts_json
FROM cycle_metrics
WHERE tenant_id = 'acme'
ORDER BY ts;
