/**
 * Append-only schema migrations for PostgreSQL, mirroring the SQLite ones: never edit a released
 * entry, add a new one. Each runs once, in order, under an advisory lock (see pg_store.ts).
 */
export const pgMigrations: readonly string[] = [
  `
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
  `
  CREATE INDEX runs_uploaded_at ON runs (uploaded_at);
  CREATE INDEX runs_owner_uploaded_at ON runs (owner, uploaded_at);
  `,
  `
  -- The sign-in turn of each client address, so attempts are answered one at a time by all instances.
  CREATE TABLE login_turns (client TEXT PRIMARY KEY, holder TEXT NOT NULL, until BIGINT NOT NULL);
  `,
  `
  -- Old sign-in failures of every address are pruned on each new failure, so addresses that fail
  -- once and never return do not grow the table.
  CREATE INDEX login_failures_at ON login_failures (at);
  `,
  `
  -- Sessions signed out before their expiry: a copied cookie of one is refused everywhere.
  CREATE TABLE ended_sessions (id TEXT PRIMARY KEY, expires_at BIGINT NOT NULL);
  CREATE INDEX ended_sessions_expires_at ON ended_sessions (expires_at);
  `,
];
