-- Tenants, their API keys and quotas, and what each tenant uses (docs/operations.md, "Tenants, keys and quotas").
-- Every replica of the memory service holds the tenants and keys in memory and reloads them when
-- directory_version moves: each change bumps it in the transaction that makes it, so a replica sees it within
-- its poll interval (250 ms).

CREATE TABLE tenants (
  tenant_id           TEXT             PRIMARY KEY,
  status              TEXT             NOT NULL DEFAULT 'active',  -- 'active' | 'suspended' | 'deleting'
  created_at          TIMESTAMPTZ      NOT NULL DEFAULT now(),
  deletion_forget_id  TEXT,                                        -- the forget that removes its records
  -- quotas; NULL takes the service's default (quota.* settings)
  max_records         BIGINT,
  max_text_bytes_day  BIGINT,
  writes_per_second   DOUBLE PRECISION,
  reads_per_second    DOUBLE PRECISION
);

-- A key's secret is never stored: its SHA-256 digest is. key_id names the key (in lists, logs, revocation).
CREATE TABLE api_keys (
  key_id      TEXT        PRIMARY KEY,
  tenant_id   TEXT        NOT NULL,
  name        TEXT        NOT NULL,
  scopes      TEXT        NOT NULL,  -- comma-separated: read, write, forget, admin
  digest      BYTEA       NOT NULL UNIQUE,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at  TIMESTAMPTZ,
  revoked_at  TIMESTAMPTZ
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

CREATE TABLE directory_version (
  id       INT    PRIMARY KEY CHECK (id = 1),
  version  BIGINT NOT NULL
);
INSERT INTO directory_version VALUES (1, 0);

-- Usage per tenant and UTC day, added to by every replica (each flushes its counts once a second).
CREATE TABLE usage_daily (
  tenant_id        TEXT   NOT NULL,
  day              DATE   NOT NULL,
  records_written  BIGINT NOT NULL DEFAULT 0,  -- records accepted by a write
  bytes_written    BIGINT NOT NULL DEFAULT 0,  -- UTF-8 bytes of their text (a document's content)
  writes           BIGINT NOT NULL DEFAULT 0,  -- write requests (HTTP or MCP) that accepted a record
  reads            BIGINT NOT NULL DEFAULT 0,  -- read requests: search, context, listings, gets
  contexts         BIGINT NOT NULL DEFAULT 0,  -- contexts assembled
  forgets          BIGINT NOT NULL DEFAULT 0,  -- forgets requested
  embed_millis     BIGINT NOT NULL DEFAULT 0,  -- time spent embedding the tenant's queries
  PRIMARY KEY (tenant_id, day)
);
