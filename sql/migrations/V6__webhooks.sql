-- Webhooks over the change feed (docs/operations.md, "Webhooks"): what a tenant registered, each webhook's queue of
-- changes still to deliver, how far into each partition of engram.changes.v1 it was queued, and the log of
-- delivery attempts. The service's dispatcher fills the queues (a change read again, after a crash or a rebalance,
-- is below the webhook's offset and not queued again, even once delivered) and its senders empty them in order.

CREATE TABLE webhooks (
  webhook_id         TEXT        PRIMARY KEY,
  tenant_id          TEXT        NOT NULL,
  url                TEXT        NOT NULL,
  kinds              TEXT        NOT NULL DEFAULT '',  -- comma-separated change kinds; '' is every kind
  description        TEXT        NOT NULL DEFAULT '',
  secret             TEXT        NOT NULL,             -- the HMAC key: kept as is, since every delivery signs with it
  created_at         TIMESTAMPTZ NOT NULL,
  paused_at          TIMESTAMPTZ,                      -- set when delivery gave up; cleared by resume
  pause_reason       TEXT,
  failures_in_row    INT         NOT NULL DEFAULT 0,
  failing_since      TIMESTAMPTZ,
  next_attempt_at    TIMESTAMPTZ,                      -- the backoff: no attempt before it
  last_delivered_at  TIMESTAMPTZ,
  lease_owner        TEXT,                             -- the replica sending it, until lease_until
  lease_until        TIMESTAMPTZ
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id);

-- A change waiting for its webhook, delivered in (partition, offset) order: a tenant's changes share one partition.
CREATE TABLE webhook_queue (
  webhook_id        TEXT        NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  change_partition  INT         NOT NULL,
  change_offset     BIGINT      NOT NULL,
  change_id         TEXT        NOT NULL,
  kind              TEXT        NOT NULL,
  body              TEXT        NOT NULL,  -- the change.v1 JSON as published, sent unchanged
  attempts          INT         NOT NULL DEFAULT 0,
  enqueued_at       TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (webhook_id, change_partition, change_offset)
);

-- The next offset of each partition of the change feed a webhook takes: what is below was queued already.
CREATE TABLE webhook_offsets (
  webhook_id        TEXT    NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  change_partition  INT     NOT NULL,
  next_offset       BIGINT  NOT NULL,
  PRIMARY KEY (webhook_id, change_partition)
);

-- Every attempt, the newest webhooks.log-size kept per webhook.
CREATE TABLE webhook_deliveries (
  id           BIGSERIAL   PRIMARY KEY,
  webhook_id   TEXT        NOT NULL REFERENCES webhooks ON DELETE CASCADE,
  change_id    TEXT        NOT NULL,
  kind         TEXT        NOT NULL,
  attempt      INT         NOT NULL,
  status_code  INT,                    -- the receiver's answer; NULL when none came
  error        TEXT,                   -- why the attempt failed; NULL when delivered
  at           TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
