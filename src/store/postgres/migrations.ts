/**
 * The PostgreSQL schema, migration by migration (see ../migrations.ts), under the names the SQLite
 * schema uses for the same change: never edit a released entry, add a new one. Each runs once, in
 * order, under an advisory lock (see db.ts).
 */
import type { Migration } from '../migrations.ts';

export const migrations: readonly Migration[] = [
  {
    name: 'initial',
    sql: `
  CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE credentials (username TEXT PRIMARY KEY, hash TEXT NOT NULL, updated_at BIGINT NOT NULL);
  CREATE TABLE login_failures (client TEXT NOT NULL, at BIGINT NOT NULL);
  CREATE INDEX login_failures_client_at ON login_failures (client, at);
  CREATE TABLE accounts (subject TEXT PRIMARY KEY, display TEXT NOT NULL, last_sign_in_at BIGINT NOT NULL);
  CREATE INDEX accounts_last_sign_in ON accounts (last_sign_in_at);
  CREATE TABLE enroll_tokens (
    hash TEXT PRIMARY KEY, owner TEXT NOT NULL, created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT
  );
  CREATE TABLE devices (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    owner TEXT NOT NULL,
    credential_hash TEXT NOT NULL UNIQUE,
    enrolled_at BIGINT NOT NULL,
    last_seen_at BIGINT,
    last_upload_at BIGINT,
    revoked_at BIGINT
  );
  CREATE INDEX devices_owner_seq ON devices (owner, seq);
  CREATE TABLE runs (
    seq BIGSERIAL PRIMARY KEY,
    device_id TEXT NOT NULL REFERENCES devices (id),
    id TEXT NOT NULL,
    owner TEXT NOT NULL,
    content_type TEXT NOT NULL,
    privacy TEXT NOT NULL CHECK (privacy IN ('full', 'redacted', 'minimal')),
    size BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    uploaded_at BIGINT NOT NULL,
    chunked BOOLEAN NOT NULL DEFAULT false,
    body BYTEA NOT NULL,
    UNIQUE (device_id, id)
  );
  CREATE INDEX runs_owner_seq ON runs (owner, seq);
  CREATE TABLE run_chunks (
    run_seq BIGINT NOT NULL REFERENCES runs (seq) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (run_seq, n)
  );
  CREATE TABLE probe (id INTEGER PRIMARY KEY CHECK (id = 1), at BIGINT NOT NULL);
  `,
  },
  {
    name: 'runs-by-time',
    sql: `
  CREATE INDEX runs_uploaded_at ON runs (uploaded_at);
  CREATE INDEX runs_owner_uploaded_at ON runs (owner, uploaded_at);
  `,
  },
  {
    name: 'login-turns',
    sql: `
  -- The sign-in turn of each client address, so attempts are answered one at a time by all instances.
  CREATE TABLE login_turns (client TEXT PRIMARY KEY, holder TEXT NOT NULL, until BIGINT NOT NULL);
  `,
  },
  {
    name: 'login-failures-at',
    sql: `
  -- Old sign-in failures of every address are pruned on each new failure, so addresses that fail
  -- once and never return do not grow the table.
  CREATE INDEX login_failures_at ON login_failures (at);
  `,
  },
  {
    name: 'ended-sessions',
    sql: `
  -- Sessions signed out before their expiry: a copied cookie of one is refused everywhere.
  CREATE TABLE ended_sessions (id TEXT PRIMARY KEY, expires_at BIGINT NOT NULL);
  CREATE INDEX ended_sessions_expires_at ON ended_sessions (expires_at);
  `,
  },
  {
    name: 'runs-list-covering',
    sql: `
  -- The run lists read their page from covering indexes (index-only scans), as on SQLite.
  CREATE INDEX runs_list ON runs (seq, device_id, id, content_type, privacy, size, uploaded_at);
  CREATE INDEX runs_owner_list ON runs (owner, seq, device_id, id, content_type, privacy, size, uploaded_at);
  DROP INDEX runs_owner_seq;
  `,
  },
  {
    name: 'counts',
    sql: `
  -- The dashboard's counts, kept by triggers as devices and runs come and go, so reading them does
  -- not grow with the tables. Each connection adds to the shard of its backend process, so
  -- concurrent uploads of one owner seldom wait for one another's row.
  CREATE TABLE counts (
    owner TEXT NOT NULL,
    shard INTEGER NOT NULL,
    devices BIGINT NOT NULL DEFAULT 0,
    active_devices BIGINT NOT NULL DEFAULT 0,
    runs BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (owner, shard)
  );
  INSERT INTO counts (owner, shard, devices, active_devices, runs)
    SELECT owner, 0, sum(d), sum(a), sum(r) FROM (
      SELECT owner, 1 AS d, (revoked_at IS NULL)::int AS a, 0 AS r FROM devices
      UNION ALL SELECT owner, 0, 0, 1 FROM runs
    ) AS both_tables GROUP BY owner;
  CREATE FUNCTION counts_shard() RETURNS integer LANGUAGE sql AS 'SELECT pg_backend_pid() % 16';
  CREATE FUNCTION counts_runs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO counts (owner, shard, runs)
        SELECT owner, counts_shard(), count(*) FROM changed GROUP BY owner ORDER BY owner
        ON CONFLICT (owner, shard) DO UPDATE SET runs = counts.runs + excluded.runs;
    ELSE
      INSERT INTO counts (owner, shard, runs)
        SELECT owner, counts_shard(), -count(*) FROM changed GROUP BY owner ORDER BY owner
        ON CONFLICT (owner, shard) DO UPDATE SET runs = counts.runs + excluded.runs;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER counts_runs_insert AFTER INSERT ON runs
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION counts_runs_changed();
  CREATE TRIGGER counts_runs_delete AFTER DELETE ON runs
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION counts_runs_changed();
  CREATE FUNCTION counts_devices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    d bigint := 0;
    a bigint := 0;
    who text;
  BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      who := NEW.owner;
      a := a + (NEW.revoked_at IS NULL)::int;
      IF TG_OP = 'INSERT' THEN d := 1; END IF;
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
      who := OLD.owner;
      a := a - (OLD.revoked_at IS NULL)::int;
      IF TG_OP = 'DELETE' THEN d := -1; END IF;
    END IF;
    INSERT INTO counts (owner, shard, devices, active_devices) VALUES (who, counts_shard(), d, a)
      ON CONFLICT (owner, shard) DO UPDATE
      SET devices = counts.devices + excluded.devices, active_devices = counts.active_devices + excluded.active_devices;
    RETURN NULL;
  END $$;
  CREATE TRIGGER counts_devices_change AFTER INSERT OR DELETE ON devices
    FOR EACH ROW EXECUTE FUNCTION counts_devices_changed();
  CREATE TRIGGER counts_devices_revoke AFTER UPDATE OF revoked_at ON devices
    FOR EACH ROW EXECUTE FUNCTION counts_devices_changed();
  `,
  },
  {
    name: 'fleet-lists',
    sql: `
  -- name_key is the name lower-cased by Paddock, compared byte by byte ("C") as on SQLite.
  ALTER TABLE devices ADD COLUMN name_key TEXT COLLATE "C" NOT NULL DEFAULT '';
  UPDATE devices SET name_key = lower(name);
  -- The fleet console's lists (docs/contract.md section 9): each filter and sort walks an index.
  CREATE INDEX devices_name ON devices (name_key, seq);
  CREATE INDEX devices_owner_name ON devices (owner, name_key, seq);
  CREATE INDEX devices_seen ON devices (coalesce(last_seen_at, 0), seq);
  CREATE INDEX devices_owner_seen ON devices (owner, coalesce(last_seen_at, 0), seq);
  -- Status filters walk the newest devices of one side of revocation (partial indexes).
  CREATE INDEX devices_revoked ON devices (seq) WHERE revoked_at IS NOT NULL;
  CREATE INDEX devices_unrevoked ON devices (seq) WHERE revoked_at IS NULL;
  CREATE INDEX runs_device_list ON runs (device_id, seq, id, content_type, privacy, size, uploaded_at);
  CREATE INDEX runs_privacy_list ON runs (privacy, seq, device_id, id, content_type, size, uploaded_at);
  CREATE INDEX runs_owner_privacy_list ON runs (owner, privacy, seq, device_id, id, content_type, size, uploaded_at);
  -- Substring search over id and name: a trigram index (pg_trgm is a trusted extension). The
  -- extension lives in one schema per database, maybe not on this store's search_path: its
  -- operator class is named with that schema.
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  DO $$ BEGIN
    EXECUTE format(
      'CREATE INDEX devices_search ON devices USING gin ((lower(id || chr(1) || name)) %I.gin_trgm_ops) WITH (fastupdate = off)',
      (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'));
  END $$;
  `,
  },
  {
    name: 'device-enrollment',
    sql: `
  -- What the device page shows of its enrollment (docs/contract.md section 9), copied from the token.
  ALTER TABLE devices ADD COLUMN enrolled_by TEXT NOT NULL DEFAULT '';
  ALTER TABLE devices ADD COLUMN enroll_note TEXT NOT NULL DEFAULT '';
  ALTER TABLE devices ADD COLUMN max_privacy TEXT NOT NULL DEFAULT 'full';
  `,
  },
  {
    name: 'enroll-token-fields',
    sql: `
  -- Enrollment under control (docs/contract.md section 9): a public id for the tokens page (random, never
  -- the token or its hash), uses as minted and left, the device name, note and privacy ceiling the
  -- token gives its devices, and revocation. A token used before this has no uses left.
  ALTER TABLE enroll_tokens ADD COLUMN public_id TEXT NOT NULL DEFAULT '';
  UPDATE enroll_tokens SET public_id = 't_' || replace(gen_random_uuid()::text, '-', '');
  CREATE UNIQUE INDEX enroll_tokens_public_id ON enroll_tokens (public_id);
  ALTER TABLE enroll_tokens ADD COLUMN uses INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE enroll_tokens ADD COLUMN uses_left INTEGER NOT NULL DEFAULT 1;
  UPDATE enroll_tokens SET uses_left = 0 WHERE used_at IS NOT NULL;
  ALTER TABLE enroll_tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
  ALTER TABLE enroll_tokens ADD COLUMN note TEXT NOT NULL DEFAULT '';
  ALTER TABLE enroll_tokens ADD COLUMN max_privacy TEXT NOT NULL DEFAULT 'full';
  ALTER TABLE enroll_tokens ADD COLUMN revoked_at BIGINT;
  -- The outstanding list, newest first: only tokens with uses left and not revoked are in it.
  CREATE INDEX enroll_tokens_outstanding ON enroll_tokens (created_at, public_id)
    WHERE uses_left > 0 AND revoked_at IS NULL;
  `,
  },
  {
    name: 'audit',
    sql: `
  -- The audit trail (docs/contract.md section 9). Append-only: an UPDATE is refused by the trigger below;
  -- rows leave only through the sweeper's prune by age. Each filter of /audit walks its own index
  -- in the page's order (at, seq), newest first, so no filter scans or sorts.
  CREATE TABLE audit (
    seq BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
    event TEXT NOT NULL,
    account TEXT,
    client TEXT,
    device TEXT,
    run TEXT,
    detail TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX audit_at ON audit (at, seq);
  CREATE INDEX audit_account ON audit (account, at, seq);
  CREATE INDEX audit_event ON audit (event, at, seq);
  CREATE INDEX audit_device ON audit (device, at, seq);
  CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'audit records are append-only';
  END $$;
  CREATE TRIGGER audit_append_only BEFORE UPDATE ON audit
    FOR EACH ROW EXECUTE FUNCTION audit_append_only();
  -- The accounts page, most recent sign-in first, keyset-paged by (last sign-in, subject).
  CREATE INDEX accounts_recent ON accounts (last_sign_in_at, subject);
  `,
  },
  {
    name: 'device-bytes',
    sql: `
  -- Stored bytes per device (docs/contract.md section 10), kept by triggers as runs come and go, so the
  -- quota check and the device page read a counter rather than summing the device's runs. Sharded
  -- by backend process as the counts are, so one device's concurrent uploads seldom wait.
  CREATE TABLE device_bytes (
    device_id TEXT NOT NULL,
    shard INTEGER NOT NULL,
    bytes BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (device_id, shard)
  );
  INSERT INTO device_bytes (device_id, shard, bytes) SELECT device_id, 0, sum(size) FROM runs GROUP BY device_id;
  CREATE FUNCTION device_bytes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO device_bytes (device_id, shard, bytes)
        SELECT device_id, counts_shard(), sum(size) FROM changed GROUP BY device_id ORDER BY device_id
        ON CONFLICT (device_id, shard) DO UPDATE SET bytes = device_bytes.bytes + excluded.bytes;
    ELSE
      INSERT INTO device_bytes (device_id, shard, bytes)
        SELECT device_id, counts_shard(), -sum(size) FROM changed GROUP BY device_id ORDER BY device_id
        ON CONFLICT (device_id, shard) DO UPDATE SET bytes = device_bytes.bytes + excluded.bytes;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER device_bytes_runs_insert AFTER INSERT ON runs
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION device_bytes_changed();
  CREATE TRIGGER device_bytes_runs_delete AFTER DELETE ON runs
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION device_bytes_changed();
  CREATE FUNCTION device_bytes_device_gone() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM device_bytes WHERE device_id = OLD.id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER device_bytes_device_delete AFTER DELETE ON devices
    FOR EACH ROW EXECUTE FUNCTION device_bytes_device_gone();
  `,
  },
  {
    name: 'level-check',
    sql: `
  -- The level check (docs/contract.md section 10): whether the redaction rules still find something in a
  -- redacted or minimal run, and the counts per rule as JSON (never the matched text); findings is
  -- NULL until the run is checked (full runs are never checked). The run lists show the flag, so
  -- their covering indexes gain it; the flagged filter walks its own partial index in page order.
  ALTER TABLE runs ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN findings TEXT;
  DROP INDEX runs_list;
  DROP INDEX runs_owner_list;
  DROP INDEX runs_device_list;
  DROP INDEX runs_privacy_list;
  DROP INDEX runs_owner_privacy_list;
  CREATE INDEX runs_list ON runs (seq, device_id, id, content_type, privacy, size, uploaded_at, flagged);
  CREATE INDEX runs_owner_list ON runs (owner, seq, device_id, id, content_type, privacy, size, uploaded_at, flagged);
  CREATE INDEX runs_device_list ON runs (device_id, seq, id, content_type, privacy, size, uploaded_at, flagged);
  CREATE INDEX runs_privacy_list ON runs (privacy, seq, device_id, id, content_type, size, uploaded_at, flagged);
  CREATE INDEX runs_owner_privacy_list ON runs (owner, privacy, seq, device_id, id, content_type, size, uploaded_at, flagged);
  CREATE INDEX runs_flagged_list ON runs (seq, device_id, id, content_type, privacy, size, uploaded_at, flagged)
    WHERE flagged = 1;
  CREATE INDEX runs_owner_flagged_list ON runs (owner, seq, device_id, id, content_type, privacy, size, uploaded_at, flagged)
    WHERE flagged = 1;
  `,
  },
  {
    name: 'retention',
    sql: `
  -- Retention by privacy level (docs/contract.md section 10). The sweeper deletes the oldest runs of one
  -- level, and the dashboard counts what the next sweep will remove, both through that level's
  -- partial index in (uploaded_at, seq) order; size is in it so the count reads no table row.
  -- Led by upload time, which follows the table's order, so the planner costs a walk of it as
  -- cheap; led by privacy (as on SQLite, whose planner without statistics wants the equality), it
  -- would rather sort part of runs_uploaded_at. runs_privacy_list is in seq order.
  CREATE INDEX runs_retention_full ON runs (uploaded_at, seq, size) WHERE privacy = 'full';
  CREATE INDEX runs_retention_redacted ON runs (uploaded_at, seq, size) WHERE privacy = 'redacted';
  CREATE INDEX runs_retention_minimal ON runs (uploaded_at, seq, size) WHERE privacy = 'minimal';
  -- Only one instance sweeps at a time: the lease's holder until its expiry.
  CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until BIGINT NOT NULL);
  -- Stored bytes per level, kept by the counts trigger like the other counters.
  ALTER TABLE counts ADD COLUMN full_bytes BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE counts ADD COLUMN redacted_bytes BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE counts ADD COLUMN minimal_bytes BIGINT NOT NULL DEFAULT 0;
  INSERT INTO counts (owner, shard, full_bytes, redacted_bytes, minimal_bytes)
    SELECT owner, 0, coalesce(sum(size) FILTER (WHERE privacy = 'full'), 0),
      coalesce(sum(size) FILTER (WHERE privacy = 'redacted'), 0),
      coalesce(sum(size) FILTER (WHERE privacy = 'minimal'), 0) FROM runs GROUP BY owner
    ON CONFLICT (owner, shard) DO UPDATE SET full_bytes = excluded.full_bytes,
      redacted_bytes = excluded.redacted_bytes, minimal_bytes = excluded.minimal_bytes;
  CREATE OR REPLACE FUNCTION counts_runs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    sign bigint := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
  BEGIN
    INSERT INTO counts (owner, shard, runs, full_bytes, redacted_bytes, minimal_bytes)
      SELECT owner, counts_shard(), sign * count(*),
        sign * coalesce(sum(size) FILTER (WHERE privacy = 'full'), 0),
        sign * coalesce(sum(size) FILTER (WHERE privacy = 'redacted'), 0),
        sign * coalesce(sum(size) FILTER (WHERE privacy = 'minimal'), 0)
      FROM changed GROUP BY owner ORDER BY owner
      ON CONFLICT (owner, shard) DO UPDATE SET runs = counts.runs + excluded.runs,
        full_bytes = counts.full_bytes + excluded.full_bytes,
        redacted_bytes = counts.redacted_bytes + excluded.redacted_bytes,
        minimal_bytes = counts.minimal_bytes + excluded.minimal_bytes;
    RETURN NULL;
  END $$;
  `,
  },
  {
    name: 'receipt',
    sql: `
  -- What the device says it removed (issue 14): its receipt as JSON (client, rules digest, counts
  -- per rule), NULL when it sent none.
  ALTER TABLE runs ADD COLUMN receipt TEXT;
  -- The runs the level check has yet to see (left by a full queue, a failure or a restart), oldest
  -- first, for the check's backfill at start.
  CREATE INDEX runs_unchecked ON runs (seq) WHERE findings IS NULL AND privacy <> 'full';
  `,
  },
  {
    name: 'access-tokens',
    sql: `
  -- Personal access tokens (docs/contract.md section 11): stored only as the hash of the token, addressed
  -- by a random public id. admin is the account's right when the token was made (1 or 0), which the
  -- token keeps. last_used_* is written at most once a minute.
  CREATE TABLE access_tokens (
    seq BIGSERIAL PRIMARY KEY,
    public_id TEXT NOT NULL UNIQUE,
    subject TEXT NOT NULL,
    admin INTEGER NOT NULL,
    name TEXT NOT NULL,
    hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    last_used_at BIGINT,
    last_used_client TEXT,
    revoked_at BIGINT
  );
  -- An account's tokens, newest first (keyset on seq).
  CREATE INDEX access_tokens_subject_seq ON access_tokens (subject, seq);
  -- The API's lookup of a bearer token by its hash.
  CREATE UNIQUE INDEX access_tokens_hash ON access_tokens (hash);
  `,
  },
  {
    name: 'labels',
    sql: `
  -- Device labels (docs/contract.md section 12): one row a label, one value per key (the primary key, which
  -- also reads a device's labels in key order). Deleting a device deletes its labels.
  CREATE TABLE device_labels (
    device_seq BIGINT NOT NULL REFERENCES devices (seq) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (device_seq, key)
  );
  -- The device list's label filters, newest device first: key=value walks the first, a key with
  -- any value the second, each backwards from the cursor.
  CREATE INDEX device_labels_value ON device_labels (key, value, device_seq);
  CREATE INDEX device_labels_key ON device_labels (key, device_seq);
  -- The labels a token gives every device it enrolls, as a JSON object ('{}': none).
  ALTER TABLE enroll_tokens ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';
  `,
  },
  {
    name: 'runs-by-level',
    sql: `
  -- Stored runs per level (issue 23: paddock_runs by level), kept by the counts trigger like the
  -- bytes per level, so a scrape reads counters, not the runs.
  ALTER TABLE counts ADD COLUMN full_runs BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE counts ADD COLUMN redacted_runs BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE counts ADD COLUMN minimal_runs BIGINT NOT NULL DEFAULT 0;
  INSERT INTO counts (owner, shard, full_runs, redacted_runs, minimal_runs)
    SELECT owner, 0, count(*) FILTER (WHERE privacy = 'full'), count(*) FILTER (WHERE privacy = 'redacted'),
      count(*) FILTER (WHERE privacy = 'minimal') FROM runs GROUP BY owner
    ON CONFLICT (owner, shard) DO UPDATE SET full_runs = excluded.full_runs,
      redacted_runs = excluded.redacted_runs, minimal_runs = excluded.minimal_runs;
  CREATE OR REPLACE FUNCTION counts_runs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    sign bigint := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
  BEGIN
    INSERT INTO counts (owner, shard, runs, full_bytes, redacted_bytes, minimal_bytes, full_runs, redacted_runs,
        minimal_runs)
      SELECT owner, counts_shard(), sign * count(*),
        sign * coalesce(sum(size) FILTER (WHERE privacy = 'full'), 0),
        sign * coalesce(sum(size) FILTER (WHERE privacy = 'redacted'), 0),
        sign * coalesce(sum(size) FILTER (WHERE privacy = 'minimal'), 0),
        sign * count(*) FILTER (WHERE privacy = 'full'),
        sign * count(*) FILTER (WHERE privacy = 'redacted'),
        sign * count(*) FILTER (WHERE privacy = 'minimal')
      FROM changed GROUP BY owner ORDER BY owner
      ON CONFLICT (owner, shard) DO UPDATE SET runs = counts.runs + excluded.runs,
        full_bytes = counts.full_bytes + excluded.full_bytes,
        redacted_bytes = counts.redacted_bytes + excluded.redacted_bytes,
        minimal_bytes = counts.minimal_bytes + excluded.minimal_bytes,
        full_runs = counts.full_runs + excluded.full_runs,
        redacted_runs = counts.redacted_runs + excluded.redacted_runs,
        minimal_runs = counts.minimal_runs + excluded.minimal_runs;
    RETURN NULL;
  END $$;
  `,
  },
  {
    name: 'totp-factors',
    sql: `
  -- The break-glass account's second factor (docs/contract.md section 14): the sealed secret, the
  -- last accepted time step (a code works once) and the unused recovery code hashes, space-separated.
  CREATE TABLE totp_factors (
    subject TEXT PRIMARY KEY, secret TEXT NOT NULL, last_step BIGINT NOT NULL, recovery TEXT NOT NULL,
    enrolled_at BIGINT NOT NULL
  );
  `,
  },
  {
    name: 'audit-feed',
    sql: `
  -- The audit trail sent to a syslog collector (docs/contract.md section 13), in the order records
  -- became visible. Several instances append at once, and a record with a lower seq may commit
  -- after one with a higher seq: each row keeps the id of the transaction that wrote it, and the
  -- feed reads, in (tx, seq) order, only rows of transactions older than every one still running
  -- (pg_snapshot_xmin), so no row can later appear before one already sent (docs/decisions.md).
  -- Rows already stored get this migration's transaction id and keep their seq order.
  ALTER TABLE audit ADD COLUMN tx BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint);
  CREATE INDEX audit_feed ON audit (tx, seq);
  CREATE TABLE audit_forwarded (name TEXT PRIMARY KEY, tx BIGINT NOT NULL, seq BIGINT NOT NULL);
  `,
  },
  {
    name: 'webhooks',
    sql: `
  -- Webhook endpoints (docs/contract.md section 13). events: the subscribed names, space-separated
  -- ('*' for every event but run.stored). The secrets are sealed (crypto/sealed.ts), never plain;
  -- previous_secret signs too until rotated_at + 24 h. failing_since: the first failure of the
  -- current run of failures (the endpoint is disabled once it is older than
  -- PADDOCK_WEBHOOK_DISABLE_AFTER).
  CREATE TABLE webhook_endpoints (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT NOT NULL,
    enabled BIGINT NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    rotated_at BIGINT,
    created_at BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    failures BIGINT NOT NULL DEFAULT 0,
    failing_since BIGINT,
    last_attempt_at BIGINT,
    last_outcome TEXT
  );
  -- The outbox: one message per event that some endpoint subscribed to, written in the transaction
  -- of the change it reports; one delivery per message and endpoint, claimed by one sender at a time.
  CREATE TABLE webhook_messages (
    id TEXT PRIMARY KEY,
    event TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE webhook_deliveries (
    seq BIGSERIAL PRIMARY KEY,
    message_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    event TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claimed_until BIGINT,
    created_at BIGINT NOT NULL,
    done_at BIGINT
  );
  -- The sender's walk: pending deliveries by time due; the pruning's walk: finished ones by time.
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_done ON webhook_deliveries (done_at) WHERE status <> 'pending';
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
  CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);
  CREATE TABLE webhook_attempts (
    seq BIGSERIAL PRIMARY KEY,
    delivery_seq BIGINT NOT NULL,
    endpoint_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    status_code BIGINT,
    error TEXT,
    duration_ms BIGINT NOT NULL
  );
  CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, seq);
  CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_seq);
  -- device.stale is sent once per stretch of silence: the time it was sent, cleared when the device calls.
  ALTER TABLE devices ADD COLUMN stale_noted_at BIGINT;
  `,
  },
  {
    name: 'account-sessions',
    sql: `
  -- docs/contract.md section 14. Every console session is a row (its cookie's id stays the key; the
  -- pages name it by public_id), written at sign-in or when a session from before this migration
  -- is first seen; last_seen_at at most once a minute. Ending one also adds it to ended_sessions.
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    public_id TEXT NOT NULL UNIQUE,
    subject TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    client TEXT NOT NULL,
    browser TEXT NOT NULL,
    ended_at BIGINT
  );
  -- An account's sessions, newest first; and the pruning of expired rows.
  CREATE INDEX sessions_subject ON sessions (subject, started_at);
  CREATE INDEX sessions_expires_at ON sessions (expires_at);
  -- The admin flag its latest sign-in gave (tokens act with it), and when it was disabled.
  ALTER TABLE accounts ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE accounts ADD COLUMN disabled_at BIGINT;
  -- The break-glass account is an administrator by definition.
  UPDATE accounts SET admin = 1 WHERE subject LIKE 'local:%';
  -- A token's scope: read or write (tokens made before could write).
  ALTER TABLE access_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'write' CHECK (scope IN ('read', 'write'));
  `,
  },
  {
    name: 'webhook-outbox',
    sql: `
  -- A change writes its message here, naming the endpoints it is owed to (space-separated ids): one
  -- row appended in commit order, with no other index, whatever the number of endpoints. The
  -- sender moves it, oldest first, into webhook_messages and one delivery per endpoint still there
  -- (store/outbox.ts fanOutSql), off the request path.
  CREATE TABLE webhook_outbox (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL,
    event TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    endpoints TEXT NOT NULL
  );
  `,
  },
  {
    name: 'sessions-hashed',
    sql: `
  -- Issue 34, finding 1: a session row is keyed by the SHA-256 of its cookie's id, so reading the
  -- table (a backup, a replica, a read-only role) gives no id to put in a cookie; and a session is
  -- live only while its row is, so every row written before, keyed by the id itself, is dropped:
  -- everyone signs in once more after the upgrade. ended_sessions is folded into sessions.ended_at.
  DELETE FROM sessions;
  DROP TABLE ended_sessions;
  -- The admin flag the session was started with: the cookie's must match it.
  ALTER TABLE sessions ADD COLUMN admin BIGINT NOT NULL DEFAULT 0;
  -- docs/contract.md section 17: the identity provider's session id, for back-channel logout.
  ALTER TABLE sessions ADD COLUMN sid TEXT;
  CREATE INDEX sessions_sid ON sessions (sid) WHERE sid IS NOT NULL;
  -- Logout tokens' jti seen, until their exp: a replayed token is refused by every instance.
  CREATE TABLE logout_tokens_seen (jti TEXT PRIMARY KEY, expires_at BIGINT NOT NULL);
  CREATE INDEX logout_tokens_seen_expires_at ON logout_tokens_seen (expires_at);
  -- Issue 34, finding 2: where the break-glass account last signed in successfully; attempts from
  -- there are exempt from the account-wide schedule (docs/decisions.md, the throttle).
  CREATE TABLE login_known_clients (client TEXT PRIMARY KEY, at BIGINT NOT NULL);
  -- The account-wide schedule's next free slot for attempts from other addresses.
  CREATE TABLE login_account_slots (name TEXT PRIMARY KEY, next_at BIGINT NOT NULL);
  `,
  },
  {
    name: 'collections',
    sql: `
  -- docs/contract.md section 15. A collection is one ask for a run; each device it reaches is a
  -- target, which the device sees as a request named by the target's seq (r_<seq>).
  CREATE TABLE collections (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    privacy TEXT NOT NULL CHECK (privacy IN ('full', 'redacted', 'minimal')),
    reason TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    closed_at BIGINT,
    cancelled_at BIGINT
  );
  -- A creator's collections, newest first; the sweeper's open collections past their expiry.
  CREATE INDEX collections_creator ON collections (created_by, seq);
  CREATE INDEX collections_open_expiry ON collections (expires_at) WHERE closed_at IS NULL;
  CREATE TABLE collection_targets (
    seq BIGSERIAL PRIMARY KEY,
    collection TEXT NOT NULL,
    device TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'fulfilled', 'declined', 'expired', 'cancelled', 'skipped')),
    since BIGINT NOT NULL,
    run TEXT,
    reason TEXT
  );
  -- A collection's targets, newest first; and by state (its page in one state, its counts, whether
  -- it is closed).
  CREATE INDEX collection_targets_page ON collection_targets (collection, seq);
  CREATE INDEX collection_targets_collection ON collection_targets (collection, state, seq);
  -- A device's open requests, oldest first: what it fetches, what makes it busy, what wakes it.
  CREATE INDEX collection_targets_open ON collection_targets (device, seq) WHERE state IN ('pending', 'delivered');
  `,
  },
  {
    name: 'device-approval',
    sql: `
  -- docs/contract.md section 16: a token minted with approval=required enrolls devices that wait,
  -- pending since their enrollment, until an administrator approves (pending_since becomes NULL) or
  -- rejects them (revoked, and NULL too: every revocation ends the wait).
  ALTER TABLE enroll_tokens ADD COLUMN approval TEXT NOT NULL DEFAULT 'automatic'
    CHECK (approval IN ('automatic', 'required'));
  ALTER TABLE devices ADD COLUMN pending_since BIGINT;
  -- The status filter's newest pending devices, and the dashboard's count and the gauge's oldest,
  -- read from the few waiting devices alone.
  CREATE INDEX devices_pending ON devices (seq, pending_since) WHERE pending_since IS NOT NULL;
  `,
  },
  {
    name: 'device-facts',
    sql: `
  -- Device facts (docs/contract.md section 16): what each device last reported, one row a fact, one
  -- value per key (the primary key, which also reads a device's facts in key order). A report
  -- replaces them all. Deleting a device deletes its facts.
  CREATE TABLE device_facts (
    device_seq BIGINT NOT NULL REFERENCES devices (seq) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (device_seq, key)
  );
  -- The device list's fact filters (key=value, exact), newest device first, walked backwards from
  -- the cursor; and the dashboard's count of devices by one fact's values (client_version).
  CREATE INDEX device_facts_value ON device_facts (key, value, device_seq);
  -- When each device last reported (a report of no facts too): one row a device that ever did.
  CREATE TABLE device_fact_reports (
    device_seq BIGINT PRIMARY KEY REFERENCES devices (seq) ON DELETE CASCADE,
    reported_at BIGINT NOT NULL
  );
  `,
  },
  {
    name: 'credential-rotation',
    sql: `
  -- docs/contract.md section 16: credential rotation. The current credential was issued at
  -- enrollment, or by the rotation at credential_rotated_at. The one a rotation replaced keeps
  -- working until the new one is first used (its hash and the salt are then cleared) or until
  -- previous_credential_until; while it does, a rotation asked with it again answers the same new
  -- credential, derived from the salt and the old credential (neither is enough without the other).
  ALTER TABLE devices ADD COLUMN credential_rotated_at BIGINT;
  ALTER TABLE devices ADD COLUMN previous_credential_hash TEXT;
  ALTER TABLE devices ADD COLUMN previous_credential_until BIGINT;
  ALTER TABLE devices ADD COLUMN rotation_salt TEXT;
  -- An administrator asked for a rotation (cleared by the next one).
  ALTER TABLE devices ADD COLUMN rotation_asked_at BIGINT;
  -- When the credential's expiry (PADDOCK_CREDENTIAL_MAX_AGE) was audited: once.
  ALTER TABLE devices ADD COLUMN credential_expired_at BIGINT;
  -- Changed by every change of what a lookup of the device's credential answers (a rotation, the
  -- new credential's first use, an administrator's ask); an upload is stored only while it holds
  -- the value its lookup read, so a lookup remembered by an instance never outlives such a change.
  ALTER TABLE devices ADD COLUMN credential_version BIGINT NOT NULL DEFAULT 0;
  -- The replaced credential's lookup: a few devices at a time hold one.
  CREATE UNIQUE INDEX devices_previous_credential ON devices (previous_credential_hash)
    WHERE previous_credential_hash IS NOT NULL;
  `,
  },
  {
    name: 'rotation-overlap-sweep',
    sql: `
  -- The minute sweep clears what a rotation kept for its overlap (the replaced credential's hash
  -- and the salt) once the overlap has passed, also for a new credential never used: a salt kept
  -- longer would let the old credential and a copy of the store derive the new one.
  CREATE INDEX devices_overlap_until ON devices (previous_credential_until)
    WHERE previous_credential_until IS NOT NULL;
  `,
  },
  {
    name: 'oidc-states',
    sql: `
  -- docs/contract.md section 23: the sign-in states that came back to the callback, by the hash of
  -- each, until they could no longer be taken (their 600 s, and 60 s for the clocks of instances).
  -- /auth/start writes nothing (a state carries its issue time and a MAC); the callback inserts the
  -- state here before it calls the provider's token endpoint, and a conflict is a replay.
  CREATE TABLE oidc_states (state_hash TEXT PRIMARY KEY, expires_at BIGINT NOT NULL);
  -- The minute sweep deletes the expired ones.
  CREATE INDEX oidc_states_expires_at ON oidc_states (expires_at);
  `,
  },
  {
    name: 'credential-reuse',
    sql: `
  -- docs/contract.md section 16, reuse is theft: the hash of every credential a rotation replaced,
  -- kept until PADDOCK_CREDENTIAL_MAX_AGE (or 90 days) after its replacement. Presented after its
  -- overlap, it makes its device pending with pending_reason 'credential reused' (NULL for a
  -- device that waits since its enrollment). The overlap's own columns are still cleared by the
  -- minute sweep (rotation-overlap-sweep): only the hash is kept here, never the salt.
  -- overlap_until: when its overlap ended (the new credential's first use) or ends (10 minutes),
  -- so that a request presented before then and judged again later is not taken for a reuse.
  CREATE TABLE replaced_credentials (
    hash TEXT PRIMARY KEY,
    device TEXT NOT NULL,
    replaced_at BIGINT NOT NULL,
    overlap_until BIGINT NOT NULL,
    keep_until BIGINT NOT NULL,
    -- When a rotation asked again with this credential, in its overlap, was first answered (the
    -- new credential derived again) and audited: once a rotation (device.credential_reissued).
    reissued_at BIGINT
  );
  -- The minute sweep deletes the ones kept long enough.
  CREATE INDEX replaced_credentials_keep_until ON replaced_credentials (keep_until);
  ALTER TABLE devices ADD COLUMN pending_reason TEXT;
  `,
  },
  {
    name: 'account-groups',
    sql: `
  -- docs/contract.md section 19: an account's groups, each a name exactly as the identity
  -- provider spells it (1 to 128 characters); \`group:<name>\` owners reach their members. Written
  -- at each OIDC sign-in from the groups claim, or by SCIM. The primary key finds an account's
  -- groups (every request reads them); the index, a group's members.
  CREATE TABLE account_groups (
    subject TEXT NOT NULL,
    group_name TEXT NOT NULL,
    PRIMARY KEY (subject, group_name)
  );
  CREATE INDEX account_groups_group ON account_groups (group_name, subject);
  `,
  },
  {
    name: 'hand-over',
    sql: `
  -- docs/contract.md section 19: a device handed over changes owner, and its runs' copy of the
  -- owner moves with it in the same transaction. The counters follow both, as they follow every
  -- other change (the 'counts' migrations): the old owner's go down, the new owner's up, on this
  -- connection's shard, in the order of the owners (as counts_runs_changed writes them).
  CREATE FUNCTION counts_devices_moved() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO counts (owner, shard, devices, active_devices)
      SELECT owner, counts_shard(), d, a FROM (VALUES
        (OLD.owner, -1, -(OLD.revoked_at IS NULL)::int), (NEW.owner, 1, (NEW.revoked_at IS NULL)::int)
      ) AS moved (owner, d, a) ORDER BY owner
      ON CONFLICT (owner, shard) DO UPDATE
      SET devices = counts.devices + excluded.devices, active_devices = counts.active_devices + excluded.active_devices;
    RETURN NULL;
  END $$;
  CREATE TRIGGER counts_devices_owner AFTER UPDATE OF owner ON devices
    FOR EACH ROW WHEN (OLD.owner IS DISTINCT FROM NEW.owner) EXECUTE FUNCTION counts_devices_moved();
  -- Once per statement, over the rows whose owner changed (a transition table cannot go with a
  -- column list, so every UPDATE of runs runs it: the level check's one row finds nothing to move).
  CREATE FUNCTION counts_runs_moved() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO counts (owner, shard, runs, full_bytes, redacted_bytes, minimal_bytes, full_runs, redacted_runs,
        minimal_runs)
      SELECT owner, counts_shard(), sum(sign),
        coalesce(sum(sign * size) FILTER (WHERE privacy = 'full'), 0),
        coalesce(sum(sign * size) FILTER (WHERE privacy = 'redacted'), 0),
        coalesce(sum(sign * size) FILTER (WHERE privacy = 'minimal'), 0),
        coalesce(sum(sign) FILTER (WHERE privacy = 'full'), 0),
        coalesce(sum(sign) FILTER (WHERE privacy = 'redacted'), 0),
        coalesce(sum(sign) FILTER (WHERE privacy = 'minimal'), 0)
      FROM (
        SELECT o.owner, -1 AS sign, o.size, o.privacy FROM before_rows o JOIN after_rows n ON n.seq = o.seq
          WHERE n.owner <> o.owner
        UNION ALL
        SELECT n.owner, 1, n.size, n.privacy FROM before_rows o JOIN after_rows n ON n.seq = o.seq
          WHERE n.owner <> o.owner
      ) AS moved GROUP BY owner ORDER BY owner
      ON CONFLICT (owner, shard) DO UPDATE SET runs = counts.runs + excluded.runs,
        full_bytes = counts.full_bytes + excluded.full_bytes,
        redacted_bytes = counts.redacted_bytes + excluded.redacted_bytes,
        minimal_bytes = counts.minimal_bytes + excluded.minimal_bytes,
        full_runs = counts.full_runs + excluded.full_runs,
        redacted_runs = counts.redacted_runs + excluded.redacted_runs,
        minimal_runs = counts.minimal_runs + excluded.minimal_runs;
    RETURN NULL;
  END $$;
  CREATE TRIGGER counts_runs_owner AFTER UPDATE ON runs
    REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION counts_runs_moved();
  -- The disabled accounts, few: the dashboard's count of their devices and the device list's
  -- owner_disabled filter start from here.
  CREATE INDEX accounts_disabled ON accounts (subject) WHERE disabled_at IS NOT NULL;
  -- The groups that own devices, one entry per device, for /groups: walked one group at a time
  -- (the next name after the last), so a page reads about a page of entries.
  CREATE INDEX devices_group_owners ON devices (owner) WHERE owner LIKE 'group:%';
  `,
  },
  {
    name: 'scim',
    sql: `
  -- docs/contract.md section 20: what the identity provider provisions over SCIM. user_name_key
  -- is userName lower-cased by Paddock (unique in any case, the same on both backends); subject is
  -- the account that signed in with that userName (NULL: provisioned, not signed in). attributes
  -- holds the resource's attributes as JSON. version grows at each change (the ETag). Each
  -- filter of a list reads an index: user_name_key, external_id, display_name.
  CREATE TABLE scim_users (
    id TEXT PRIMARY KEY,
    user_name TEXT NOT NULL,
    user_name_key TEXT NOT NULL,
    external_id TEXT,
    display_name TEXT,
    active INTEGER NOT NULL,
    attributes TEXT NOT NULL,
    subject TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    version BIGINT NOT NULL
  );
  CREATE UNIQUE INDEX scim_users_user_name_key ON scim_users (user_name_key);
  CREATE UNIQUE INDEX scim_users_subject ON scim_users (subject) WHERE subject IS NOT NULL;
  CREATE INDEX scim_users_external_id ON scim_users (external_id);
  CREATE INDEX scim_users_display_name ON scim_users (display_name);
  CREATE TABLE scim_groups (
    id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    external_id TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    version BIGINT NOT NULL
  );
  CREATE UNIQUE INDEX scim_groups_display_name ON scim_groups (display_name);
  CREATE INDEX scim_groups_external_id ON scim_groups (external_id);
  -- A group's members by the primary key; a user's groups by the index.
  CREATE TABLE scim_members (
    group_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    PRIMARY KEY (group_id, user_id)
  );
  CREATE INDEX scim_members_user ON scim_members (user_id, group_id);
  -- A renamed group's enrollment tokens move with it (its devices and runs have their owner indexes).
  CREATE INDEX enroll_tokens_owner ON enroll_tokens (owner);
  -- The scim token scope (docs/contract.md section 20).
  ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_scope_check;
  ALTER TABLE access_tokens ADD CONSTRAINT access_tokens_scope_check CHECK (scope IN ('read', 'write', 'scim'));
  `,
  },
  {
    name: 'run-words',
    sql: `
  -- docs/contract.md section 21: the search across runs. A text run's distinct words
  -- (src/domain/words.ts), in lower case by Paddock's own rules, so the database's locale has no say;
  -- NULL for a binary run. In the run's row, so it is written by the upload's own statement and
  -- goes with the run whatever removes it. A GIN index finds the runs holding every word
  -- (words @> query); a text[] has no size limit of its own (a tsvector holds at most 1 MB).
  ALTER TABLE runs ADD COLUMN words TEXT[];
  CREATE INDEX runs_words ON runs USING gin (words);
  -- The runs stored before this migration are indexed in the background, newest first: those below
  -- this seq are not yet (src/control/words_backfill.ts).
  INSERT INTO settings (name, value) SELECT 'run_words_backfill_below', (coalesce(max(seq), 0) + 1)::text FROM runs;
  `,
  },
  {
    name: 'run-collection',
    sql: `
  -- docs/contract.md section 22: the run page names the collection a run answered, found by the
  -- device and the run's id among the fulfilled targets.
  CREATE INDEX collection_targets_run ON collection_targets (device, run) WHERE run IS NOT NULL;
  `,
  },
  {
    name: 'enroll-address',
    sql: `
  -- docs/contract.md section 22: a pending device shows the address it enrolled from, as the server
  -- saw it (http/client_address.ts); NULL for the devices enrolled before.
  ALTER TABLE devices ADD COLUMN enrolled_from TEXT;
  `,
  },
  {
    name: 'decline-stderr',
    sql: `
  -- docs/contract.md section 15: a decline keeps the end of the command's standard error that the
  -- device sent (at most DECLINE_STDERR_MAX bytes, domain/collections.ts); NULL when none was sent.
  ALTER TABLE collection_targets ADD COLUMN stderr TEXT;
  `,
  },
  {
    name: 'run-words-bytewise',
    sql: `
  -- docs/decisions.md, "The search's words compared byte by byte on PostgreSQL": the words are
  -- already Paddock's own, in lower case (src/domain/words.ts), so the GIN index needs only an
  -- order, not the locale's: under COLLATE "C" each of a run's hundred-odd keys is placed by
  -- memcmp instead of strcoll, which made an upload's index entries about half as costly. The
  -- column keeps its values (same type); PostgreSQL rebuilds the index runs_words, once.
  ALTER TABLE runs ALTER COLUMN words TYPE TEXT[] COLLATE "C";
  `,
  },
  {
    name: 'device-counts-by-statement',
    sql: `
  -- Devices added or removed many at a time (an import, a bulk delete) were counted a row at a
  -- time: each row's trigger updated its owner's counter row again in the same transaction, and
  -- each such update walks the versions the transaction already made of that row, so a statement
  -- cost the square of an owner's devices in it (100,000 devices of 100 owners took 25 s to
  -- insert, against 1 s without the trigger). Counted once per statement now, from the transition
  -- table, owners in order as counts_runs_changed writes them. A change of revoked_at stays a row's
  -- trigger: a transition table cannot go with a column list, and every last-seen update would
  -- run it.
  DROP TRIGGER counts_devices_change ON devices;
  CREATE FUNCTION counts_devices_statement() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    sign int := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
  BEGIN
    INSERT INTO counts (owner, shard, devices, active_devices)
      SELECT owner, counts_shard(), sign * count(*), sign * count(*) FILTER (WHERE revoked_at IS NULL)
      FROM changed GROUP BY owner ORDER BY owner
      ON CONFLICT (owner, shard) DO UPDATE
      SET devices = counts.devices + excluded.devices, active_devices = counts.active_devices + excluded.active_devices;
    RETURN NULL;
  END $$;
  CREATE TRIGGER counts_devices_insert AFTER INSERT ON devices
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION counts_devices_statement();
  CREATE TRIGGER counts_devices_delete AFTER DELETE ON devices
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION counts_devices_statement();
  `,
  },
  {
    name: 'device-trigrams',
    sql: `
  -- The device search newest first (docs/contract.md section 22; store/postgres/device_search.ts):
  -- each device's trigrams of printable ASCII in its searched text, keyed by trigram and seq, so
  -- that one trigram's devices are read newest first from the primary key and a page stops after
  -- fifty matches. The GIN index devices_search has no order: a query whose matches are all old
  -- devices sorted all of them (11,111 at 100,000 devices, 12-30 ms) where this walk reads 51.
  -- Kept by statement for inserts and deletes (an import adds many at a time), by row for the
  -- rare change of a name. The printable trigrams: an ASCII text is one byte a character.
  -- Device writes wait while the table fills (about 9 s at 100,000 devices): a device enrolled,
  -- renamed or deleted by another instance between the fill and the triggers would be missed. This
  -- is the lock CREATE TRIGGER takes, taken first.
  LOCK TABLE devices IN SHARE ROW EXCLUSIVE MODE;
  CREATE FUNCTION device_trigrams_of(t text) RETURNS SETOF text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE ROWS 40 AS $f$
    SELECT DISTINCT g FROM generate_series(1, length(t) - 2) AS i, substr(t, i, 3) AS g
    WHERE octet_length(g) = 3 AND g !~ '[[:cntrl:]]'
  $f$;
  CREATE TABLE device_trigrams (
    trigram TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (trigram, seq)
  );
  INSERT INTO device_trigrams (trigram, seq)
    SELECT g, seq FROM devices, device_trigrams_of(lower(id || chr(1) || name)) AS g ORDER BY 1, 2;
  CREATE FUNCTION device_trigrams_statement() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO device_trigrams (trigram, seq)
        SELECT g, seq FROM changed, device_trigrams_of(lower(id || chr(1) || name)) AS g;
    ELSE
      DELETE FROM device_trigrams t USING changed c, device_trigrams_of(lower(c.id || chr(1) || c.name)) AS g
        WHERE t.trigram = g AND t.seq = c.seq;
    END IF;
    RETURN NULL;
  END $f$;
  CREATE TRIGGER device_trigrams_insert AFTER INSERT ON devices
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION device_trigrams_statement();
  CREATE TRIGGER device_trigrams_delete AFTER DELETE ON devices
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION device_trigrams_statement();
  CREATE FUNCTION device_trigrams_renamed() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    DELETE FROM device_trigrams WHERE seq = OLD.seq
      AND trigram IN (SELECT device_trigrams_of(lower(OLD.id || chr(1) || OLD.name)));
    INSERT INTO device_trigrams (trigram, seq)
      SELECT device_trigrams_of(lower(NEW.id || chr(1) || NEW.name)), NEW.seq;
    RETURN NULL;
  END $f$;
  CREATE TRIGGER device_trigrams_rename AFTER UPDATE OF id, name, seq ON devices FOR EACH ROW
    WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.name IS DISTINCT FROM NEW.name OR OLD.seq IS DISTINCT FROM NEW.seq)
    EXECUTE FUNCTION device_trigrams_renamed();
  -- An operator's TRUNCATE of the fleet empties the trigrams too (their seqs may start again).
  CREATE FUNCTION device_trigrams_truncated() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    TRUNCATE device_trigrams;
    RETURN NULL;
  END $f$;
  CREATE TRIGGER device_trigrams_truncate AFTER TRUNCATE ON devices
    FOR EACH STATEMENT EXECUTE FUNCTION device_trigrams_truncated();
  `,
  },
];

/** The names of the migrations that builds numbering them applied as 1, 2, 3…, in that order. */
export const numberedMigrations: readonly string[] = [
  'initial',
  'runs-by-time',
  'login-turns',
  'login-failures-at',
  'ended-sessions',
];
