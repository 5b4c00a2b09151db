-- What each tenant used over the last 30 days (the memory service's usage_daily rows), most bytes written first.
SELECT tenant_id, SUM(records_written) AS records_written, SUM(bytes_written) AS bytes_written,
       SUM(`writes`) AS write_requests, SUM(`reads`) AS read_requests, SUM(contexts) AS contexts,
       SUM(forgets) AS forgets, SUM(embed_millis) AS embed_millis
FROM usage_daily
WHERE `day` >= CURRENT_DATE - INTERVAL '30' DAY
GROUP BY tenant_id
ORDER BY bytes_written DESC, tenant_id;
