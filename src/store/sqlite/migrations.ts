/**
 * Append-only schema migrations: never edit a released entry, add a new one. Each runs once,
 * in order, inside the transaction that records it in schema_migrations.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  CREATE TABLE credentials (username TEXT PRIMARY KEY, hash TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT;
  CREATE TABLE login_failures (client TEXT NOT NULL, at INTEGER NOT NULL) STRICT;
  CREATE INDEX login_failures_client_at ON login_failures (client, at);
  CREATE TABLE accounts (
    subject TEXT PRIMARY KEY, display TEXT NOT NULL, last_sign_in_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX accounts_last_sign_in ON accounts (last_sign_in_at);
  CREATE TABLE enroll_tokens (
    hash TEXT PRIMARY KEY, owner TEXT NOT NULL, created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER
  ) STRICT;
  CREATE TABLE devices (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    owner TEXT NOT NULL,
    credential_hash TEXT NOT NULL UNIQUE,
    enrolled_at INTEGER NOT NULL,
    last_seen_at INTEGER,
    last_upload_at INTEGER,
    revoked_at INTEGER
  ) STRICT;
  CREATE INDEX devices_owner_seq ON devices (owner, seq);
  -- owner is copied from the device (it never changes) so scoped run lists walk one index.
  -- body is the last column so list queries never touch its overflow pages.
  CREATE TABLE runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    device_id TEXT NOT NULL REFERENCES devices (id),
    id TEXT NOT NULL,
    owner TEXT NOT NULL,
    content_type TEXT NOT NULL,
    privacy TEXT NOT NULL CHECK (privacy IN ('full', 'redacted', 'minimal')),
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    uploaded_at INTEGER NOT NULL,
    body BLOB NOT NULL,
    UNIQUE (device_id, id)
  ) STRICT;
  CREATE INDEX runs_owner_seq ON runs (owner, seq);
  CREATE TABLE probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL) STRICT;
  `,
  `
  -- Large runs are stored in 256 KiB chunks and runs.body is left empty, so a view can stream
  -- them; small runs keep their bytes inline, one read.
  CREATE TABLE run_chunks (
    run_seq INTEGER NOT NULL REFERENCES runs (seq) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    data BLOB NOT NULL,
    UNIQUE (run_seq, n)
  ) STRICT;
  ALTER TABLE runs ADD COLUMN chunked INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- The dashboard's uploads-per-day chart reads a time range, all runs or one owner's.
  CREATE INDEX runs_uploaded_at ON runs (uploaded_at);
  CREATE INDEX runs_owner_uploaded_at ON runs (owner, uploaded_at);
  `,
  `
  -- The sign-in turn of each client address, so attempts are answered one at a time by all instances.
  CREATE TABLE login_turns (client TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL) STRICT;
  `,
  `
  -- The run lists read their page from covering indexes: a page of 50 rows is then a page or two
  -- of index, not 50 rows of the table spread over as many pages (their bodies live there).
  CREATE INDEX runs_list ON runs (seq, device_id, id, content_type, privacy, size, uploaded_at);
  CREATE INDEX runs_owner_list ON runs (owner, seq, device_id, id, content_type, privacy, size, uploaded_at);
  DROP INDEX runs_owner_seq;
  `,
  `
  -- Old sign-in failures of every address are pruned on each new failure, so addresses that fail
  -- once and never return do not grow the table.
  CREATE INDEX login_failures_at ON login_failures (at);
  `,
  `
  -- Sessions signed out before their expiry: a copied cookie of one is refused everywhere.
  CREATE TABLE ended_sessions (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) STRICT;
  CREATE INDEX ended_sessions_expires_at ON ended_sessions (expires_at);
  `,
];
