/**
 * The Store on node:sqlite. One connection does every read and write: node:sqlite is
 * synchronous, so one connection is one writer and SQLITE_BUSY cannot arise inside a process.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type {
  Account,
  Device,
  Page,
  PageRequest,
  PutRunResult,
  Run,
  RunSummary,
  Store,
  Viewer,
  StoredRun,
} from '../store.ts';
import { StoreError } from '../errors.ts';
import { listQueries } from './list_queries.ts';
import { migrations } from './migrations.ts';
import { chartStart, deviceFrom, perDay, summaryFrom, type Row } from '../rows.ts';

/** Opens (creating if needed) `<dataDir>/paddock.db`; `:memory:` opens a private in-memory store. */
export function openSqliteStore(dataDir: string | ':memory:'): Store {
  let path = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    path = join(dataDir, 'paddock.db');
  }
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
    // WAL first so the busy timeout and later pragmas apply to a database already in its final mode;
    // the busy timeout covers other processes (such as a backup) holding the lock briefly.
    db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
    db.exec('PRAGMA synchronous = NORMAL;');
    migrate(db);
  } catch (err) {
    throw new StoreError('open', `unable to open ${path}`, err);
  }
  return new SqliteStore(db);
}

function migrate(db: DatabaseSync): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT',
  );
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  for (let version = (row.v ?? 0) + 1; version <= migrations.length; version++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(migrations[version - 1] ?? '');
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, Date.now());
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  }
  if ((row.v ?? 0) > migrations.length) {
    throw new Error(`database schema version ${row.v} is newer than this build knows (${migrations.length})`);
  }
}

/** Runs larger than this are stored in chunks of this size and streamed when viewed. */
export const CHUNK_SIZE = 256 * 1024;

function cursor(before: string | undefined): number {
  return before === undefined ? Number.MAX_SAFE_INTEGER : Number(before);
}

function page<T>(rows: Row[], limit: number, map: (row: Row) => T): Page<T> {
  const items = rows.slice(0, limit).map(map);
  const last = rows[limit - 1];
  return rows.length > limit && last ? { items, next: String(last.seq) } : { items };
}

class SqliteStore implements Store {
  #db: DatabaseSync;
  #statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #q(sql: string) {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.#q(sql).get(...params) as Row | undefined;
  }

  #all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#q(sql).all(...params) as Row[];
  }

  #run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.#q(sql).run(...params).changes);
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  async getSetting(name: string) {
    return this.#get('SELECT value FROM settings WHERE name = ?', name)?.value as string | undefined;
  }

  async setSettingIfAbsent(name: string, value: string) {
    this.#run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
    return (await this.getSetting(name)) as string;
  }

  async setSetting(name: string, value: string) {
    this.#run(
      'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      name,
      value,
    );
  }

  async passwordHash(username: string) {
    return this.#get('SELECT hash FROM credentials WHERE username = ?', username)?.hash as string | undefined;
  }

  async setPasswordHash(username: string, hash: string) {
    this.#run(
      'INSERT INTO credentials (username, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (username) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
      username,
      hash,
      Date.now(),
    );
  }

  async createPasswordHash(username: string, hash: string) {
    return (
      this.#run(
        'INSERT INTO credentials (username, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (username) DO NOTHING',
        username,
        hash,
        Date.now(),
      ) === 1
    );
  }

  async loginFailuresSince(client: string, since: number) {
    return this.#get('SELECT count(*) AS n FROM login_failures WHERE client = ? AND at > ?', client, since)
      ?.n as number;
  }

  async recordLoginFailure(client: string, at: number) {
    this.#transaction(() => {
      this.#run('INSERT INTO login_failures (client, at) VALUES (?, ?)', client, at);
      // Rows older than the 15-minute window no longer count; pruning keeps the table small.
      this.#run('DELETE FROM login_failures WHERE client = ? AND at < ?', client, at - 3_600_000);
    });
  }

  async clearLoginFailures(client: string) {
    this.#run('DELETE FROM login_failures WHERE client = ?', client);
  }

  async recordSignIn(account: Account) {
    this.#run(
      'INSERT INTO accounts (subject, display, last_sign_in_at) VALUES (?, ?, ?) ON CONFLICT (subject) DO UPDATE SET display = excluded.display, last_sign_in_at = excluded.last_sign_in_at',
      account.subject,
      account.display,
      account.lastSignInAt,
    );
  }

  async knownAccounts(limit: number) {
    return this.#all(
      'SELECT subject, display, last_sign_in_at FROM accounts ORDER BY last_sign_in_at DESC LIMIT ?',
      limit,
    ).map((r): Account => ({
      subject: r.subject as string,
      display: r.display as string,
      lastSignInAt: r.last_sign_in_at as number,
    }));
  }

  async createEnrollToken(t: { hash: string; owner: string; createdBy: string; createdAt: number; expiresAt: number }) {
    this.#run(
      'INSERT INTO enroll_tokens (hash, owner, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      t.hash,
      t.owner,
      t.createdBy,
      t.createdAt,
      t.expiresAt,
    );
  }

  async enrollDevice(input: {
    tokenHash: string;
    now: number;
    deviceId: string;
    name: string;
    credentialHash: string;
  }) {
    return this.#transaction((): Device | undefined => {
      // The conditional UPDATE is the single-use check: only one enrollment can flip used_at.
      const token = this.#get(
        'UPDATE enroll_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING owner',
        input.now,
        input.tokenHash,
        input.now,
      );
      if (!token) return undefined;
      const row = this.#get(
        'INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
        input.deviceId,
        input.name,
        token.owner as string,
        input.credentialHash,
        input.now,
        input.now,
      );
      return row && deviceFrom(row);
    });
  }

  async deviceByCredential(hash: string) {
    const row = this.#get('SELECT * FROM devices WHERE credential_hash = ?', hash);
    return row && { ...deviceFrom(row), credentialHash: row.credential_hash as string };
  }

  async deviceVisibleTo(viewer: Viewer, id: string) {
    const row = this.#get(
      'SELECT * FROM devices WHERE id = ? AND (? OR owner = ?)',
      id,
      viewer.admin ? 1 : 0,
      viewer.subject,
    );
    return row && deviceFrom(row);
  }

  async devicesVisibleTo(viewer: Viewer, req: PageRequest) {
    const rows = viewer.admin
      ? this.#all(listQueries.allDevices, cursor(req.before), req.limit + 1)
      : this.#all(listQueries.ownDevices, viewer.subject, cursor(req.before), req.limit + 1);
    return page(rows, req.limit, (r) => ({
      ...deviceFrom(r),
      lastUploadAt: (r.last_upload_at as number | null) ?? null,
    }));
  }

  async revokeDevice(viewer: Viewer, id: string, at: number) {
    return (
      this.#run(
        'UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND (? OR owner = ?)',
        at,
        id,
        viewer.admin ? 1 : 0,
        viewer.subject,
      ) === 1
    );
  }

  async putRun(run: Run & { sha256: string }): Promise<PutRunResult> {
    return this.#transaction(() => {
      // Checked inside the transaction, so a revoke that lands first refuses this upload.
      const device = this.#get('SELECT owner FROM devices WHERE id = ? AND revoked_at IS NULL', run.device);
      if (!device) return 'device-unknown';
      const chunked = run.body.byteLength > CHUNK_SIZE;
      const inserted = this.#run(
        `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, chunked)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (device_id, id) DO NOTHING`,
        run.device,
        run.id,
        device.owner as string,
        run.contentType,
        run.privacy,
        run.size,
        run.sha256,
        run.uploadedAt,
        chunked ? new Uint8Array(0) : run.body,
        chunked ? 1 : 0,
      );
      if (inserted === 1) {
        if (chunked) this.#storeChunks(run.device, run.id, run.body);
        this.#run(
          'UPDATE devices SET last_seen_at = ?, last_upload_at = ? WHERE id = ?',
          run.uploadedAt,
          run.uploadedAt,
          run.device,
        );
        return 'created';
      }
      const existing = this.#get('SELECT sha256 FROM runs WHERE device_id = ? AND id = ?', run.device, run.id);
      return existing?.sha256 === run.sha256 ? 'identical' : 'conflict';
    });
  }

  async runVisibleTo(viewer: Viewer, device: string, id: string): Promise<StoredRun | undefined> {
    const row = this.#get(
      `SELECT seq, device_id, id, content_type, privacy, size, uploaded_at, chunked FROM runs
       WHERE device_id = ? AND id = ? AND (? OR owner = ?)`,
      device,
      id,
      viewer.admin ? 1 : 0,
      viewer.subject,
    );
    if (!row) return undefined;
    const seq = row.seq as number;
    const read = row.chunked ? () => this.#chunks(seq) : () => this.#inline(seq);
    return { ...summaryFrom(row), read };
  }

  #storeChunks(device: string, id: string, body: Uint8Array) {
    const seq = this.#get('SELECT seq FROM runs WHERE device_id = ? AND id = ?', device, id)?.seq as number;
    for (let n = 0, at = 0; at < body.byteLength; n++, at += CHUNK_SIZE) {
      this.#run(
        'INSERT INTO run_chunks (run_seq, n, data) VALUES (?, ?, ?)',
        seq,
        n,
        body.subarray(at, at + CHUNK_SIZE),
      );
    }
  }

  async *#inline(seq: number): AsyncGenerator<Uint8Array> {
    const body = this.#get('SELECT body FROM runs WHERE seq = ?', seq)?.body as Uint8Array | undefined;
    if (body) yield body;
  }

  /** One chunk per step: other requests run between them, and only one chunk is in memory. */
  async *#chunks(seq: number): AsyncGenerator<Uint8Array> {
    for (let n = 0; ; n++) {
      const data = this.#get('SELECT data FROM run_chunks WHERE run_seq = ? AND n = ?', seq, n)?.data as
        Uint8Array | undefined;
      if (!data) return;
      yield data;
    }
  }

  async runsVisibleTo(viewer: Viewer, req: PageRequest): Promise<Page<RunSummary>> {
    const rows = viewer.admin
      ? this.#all(listQueries.allRuns, cursor(req.before), req.limit + 1)
      : this.#all(listQueries.ownRuns, viewer.subject, cursor(req.before), req.limit + 1);
    return page(rows, req.limit, summaryFrom);
  }

  async deleteRun(viewer: Viewer, device: string, id: string) {
    return (
      this.#run(
        'DELETE FROM runs WHERE device_id = ? AND id = ? AND (? OR owner = ?)',
        device,
        id,
        viewer.admin ? 1 : 0,
        viewer.subject,
      ) === 1
    );
  }

  async countsVisibleTo(viewer: Viewer) {
    const all = viewer.admin ? 1 : 0;
    const devices = this.#get(
      'SELECT count(*) AS n, count(*) FILTER (WHERE revoked_at IS NULL) AS active FROM devices WHERE (? OR owner = ?)',
      all,
      viewer.subject,
    );
    const runs = this.#get('SELECT count(*) AS n FROM runs WHERE (? OR owner = ?)', all, viewer.subject);
    return { devices: devices?.n as number, activeDevices: devices?.active as number, runs: runs?.n as number };
  }

  async uploadsPerDay(viewer: Viewer, days: number, now: number) {
    const since = chartStart(days, now);
    const rows = viewer.admin
      ? this.#all(
          'SELECT uploaded_at / 86400000 AS day, count(*) AS n FROM runs WHERE uploaded_at >= ? GROUP BY day',
          since,
        )
      : this.#all(
          'SELECT uploaded_at / 86400000 AS day, count(*) AS n FROM runs WHERE owner = ? AND uploaded_at >= ? GROUP BY day',
          viewer.subject,
          since,
        );
    return perDay(rows, days, now);
  }

  async probe(now: number) {
    this.#run('INSERT INTO probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at', now);
    if (this.#get('SELECT at FROM probe WHERE id = 1')?.at !== now)
      throw new StoreError('probe', 'read back a different value');
  }

  async close() {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}
