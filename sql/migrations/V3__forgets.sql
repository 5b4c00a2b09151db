-- Forgetting (docs/contracts.md, "Forgetting"): one row per forget request. The memory service inserts the
-- request; the pipeline's writer fills in completed_at and records_removed once OpenSearch has deleted what it
-- covers (a pipeline fed by a gateway directly inserts the whole row).

CREATE TABLE forgets (
  tenant_id        TEXT        NOT NULL,
  forget_id        TEXT        NOT NULL,
  scope            TEXT        NOT NULL,  -- 'memory' | 'session' | 'user'
  target           TEXT        NOT NULL,  -- record id, session id or user id
  requested_at     TIMESTAMPTZ NOT NULL,
  completed_at     TIMESTAMPTZ,
  records_removed  BIGINT,
  PRIMARY KEY (tenant_id, forget_id)
);
CREATE INDEX forgets_requested_at ON forgets (requested_at);

-- What the memory service refused or did on a tenant's behalf that an operator must be able to look back on:
-- a request naming another tenant, every forget.
CREATE TABLE api_audit (
  id          BIGSERIAL   PRIMARY KEY,
  at          TIMESTAMPTZ NOT NULL DEFAULT now(),
  tenant_id   TEXT        NOT NULL,  -- the tenant of the API key
  action      TEXT        NOT NULL,  -- 'forget' | 'cross_tenant'
  detail      TEXT        NOT NULL
);
CREATE INDEX api_audit_tenant_at ON api_audit (tenant_id, at);
