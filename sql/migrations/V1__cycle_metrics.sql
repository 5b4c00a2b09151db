-- Engram metrics history (BRIEF.md §D). Migrations are append-only: change the
-- schema with a new V<n>__*.sql file, never by editing an applied one.

CREATE TABLE cycle_metrics (
  tenant_id               TEXT             NOT NULL,
  cycle_id                TEXT             NOT NULL,
  ts                      TIMESTAMPTZ      NOT NULL,  -- when the cycle closed
  close_reason            TEXT             NOT NULL,  -- 'cycle_id' | 'quiet_gap'
  canary_set_id           TEXT             NOT NULL,
  canary_count            INTEGER          NOT NULL,
  mean_recall             DOUBLE PRECISION NOT NULL,
  mean_ndcg               DOUBLE PRECISION NOT NULL,
  mean_mrr                DOUBLE PRECISION NOT NULL,
  canary_ranks_json       TEXT             NOT NULL,  -- [[canary_id, rank|-1], ...]
  store_total             BIGINT           NOT NULL,
  store_by_type_json      TEXT             NOT NULL,  -- {"memory":n,"lesson":n,...}
  distinct_content_ratio  DOUBLE PRECISION NOT NULL,
  mean_bigram_diversity   DOUBLE PRECISION NOT NULL,
  over_generation_count   BIGINT           NOT NULL,
  accepted_actions        BIGINT           NOT NULL,
  merge_floor_violations  BIGINT           NOT NULL DEFAULT 0,
  generation_guard_refusals BIGINT         NOT NULL DEFAULT 0,
  alerts_json             TEXT             NOT NULL DEFAULT '[]',
  PRIMARY KEY (tenant_id, cycle_id)
);
CREATE INDEX cycle_metrics_ts ON cycle_metrics (ts);
CREATE INDEX cycle_metrics_tenant_ts ON cycle_metrics (tenant_id, ts);

CREATE TABLE canary_queries (
  tenant_id      TEXT        NOT NULL,
  canary_set_id  TEXT        NOT NULL,
  canary_id      TEXT        NOT NULL,
  anchor_ref     TEXT        NOT NULL,  -- the memory record the canary must find
  anchor_type    TEXT        NOT NULL,
  query          TEXT        NOT NULL,  -- deterministic BM25 query string
  source         TEXT        NOT NULL DEFAULT 'auto',  -- 'auto' | 'manual'
  created_at     TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (tenant_id, canary_set_id, canary_id)
);

CREATE TABLE collapse_alerts (
  tenant_id      TEXT        NOT NULL,
  cycle_id       TEXT        NOT NULL,
  kind           TEXT        NOT NULL,  -- collapse-recall | collapse-entropy | collapse-shrink | merge-floor | churn
  ts             TIMESTAMPTZ NOT NULL,
  canary_set_id  TEXT        NOT NULL,
  detail         TEXT        NOT NULL,
  PRIMARY KEY (tenant_id, cycle_id, kind)
);
CREATE INDEX collapse_alerts_ts ON collapse_alerts (ts);
