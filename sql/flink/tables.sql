-- Flink SQL view of Engram's metrics history in PostgreSQL (tables from sql/migrations).
-- ${postgres.url}, ${postgres.user} and ${postgres.password} are filled in by `./engram sql`
-- (or by you, when running this file in a Flink SQL client).

CREATE TABLE cycle_metrics (
  tenant_id                 STRING,
  cycle_id                  STRING,
  ts                        TIMESTAMP(6),
  close_reason              STRING,
  canary_set_id             STRING,
  canary_count              INT,
  mean_recall               DOUBLE,
  mean_ndcg                 DOUBLE,
  mean_mrr                  DOUBLE,
  canary_ranks_json         STRING,
  store_total               BIGINT,
  store_by_type_json        STRING,
  distinct_content_ratio    DOUBLE,
  mean_bigram_diversity     DOUBLE,
  over_generation_count     BIGINT,
  accepted_actions          BIGINT,
  merge_floor_violations    BIGINT,
  generation_guard_refusals BIGINT,
  alerts_json               STRING,
  PRIMARY KEY (tenant_id, cycle_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = '${postgres.url}',
  'table-name' = 'cycle_metrics',
  'username' = '${postgres.user}',
  'password' = '${postgres.password}'
);

CREATE TABLE collapse_alerts (
  tenant_id     STRING,
  cycle_id      STRING,
  kind          STRING,
  ts            TIMESTAMP(6),
  canary_set_id STRING,
  detail        STRING,
  PRIMARY KEY (tenant_id, cycle_id, kind) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = '${postgres.url}',
  'table-name' = 'collapse_alerts',
  'username' = '${postgres.user}',
  'password' = '${postgres.password}'
);

CREATE TABLE canary_queries (
  tenant_id     STRING,
  canary_set_id STRING,
  canary_id     STRING,
  anchor_ref    STRING,
  anchor_type   STRING,
  query         STRING,
  source        STRING,
  created_at    TIMESTAMP(6),
  PRIMARY KEY (tenant_id, canary_set_id, canary_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = '${postgres.url}',
  'table-name' = 'canary_queries',
  'username' = '${postgres.user}',
  'password' = '${postgres.password}'
);

CREATE TABLE usage_daily (
  tenant_id        STRING,
  `day`            DATE,
  records_written  BIGINT,
  bytes_written    BIGINT,
  `writes`         BIGINT,
  `reads`          BIGINT,
  contexts         BIGINT,
  forgets          BIGINT,
  embed_millis     BIGINT,
  PRIMARY KEY (tenant_id, `day`) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = '${postgres.url}',
  'table-name' = 'usage_daily',
  'username' = '${postgres.user}',
  'password' = '${postgres.password}'
);
