/**
 * The Store on node:sqlite: settings, credentials, the throttle's failures, accounts, enrollment
 * tokens and devices here; runs in runs.ts; the connection in db.ts.
 */
import { StoreError } from '../errors.ts';
import { cursor, deviceFrom, page } from '../rows.ts';
import type {
  Account,
  Device,
  Page,
  PageRequest,
  PutRunResult,
  Run,
  RunSummary,
  Store,
  StoredRun,
  Viewer,
} from '../store.ts';
import { type Db, openDb } from './db.ts';
import { deviceFromArray, listQueries, seqOf } from './list_queries.ts';
import { SqliteRuns } from './runs.ts';

/** Opens (creating if needed) `<dataDir>/paddock.db`; `:memory:` opens a private in-memory store. */
export function openSqliteStore(dataDir: string | ':memory:'): Store {
  return new SqliteStore(openDb(dataDir));
}

class SqliteStore implements Store {
  #db: Db;
  #runs: SqliteRuns;

  constructor(db: Db) {
    this.#db = db;
    this.#runs = new SqliteRuns(db);
  }

  async getSetting(name: string) {
    return this.#db.get('SELECT value FROM settings WHERE name = ?', name)?.value as string | undefined;
  }

  async setSettingIfAbsent(name: string, value: string) {
    this.#db.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
    return (await this.getSetting(name)) as string;
  }

  async setSetting(name: string, value: string) {
    this.#db.run(
      'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      name,
      value,
    );
  }

  async passwordHash(username: string) {
    return this.#db.get('SELECT hash FROM credentials WHERE username = ?', username)?.hash as string | undefined;
  }

  async setPasswordHash(username: string, hash: string) {
    this.#db.run(
      'INSERT INTO credentials (username, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (username) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
      username,
      hash,
      Date.now(),
    );
  }

  async createPasswordHash(username: string, hash: string) {
    return (
      this.#db.run(
        'INSERT INTO credentials (username, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (username) DO NOTHING',
        username,
        hash,
        Date.now(),
      ) === 1
    );
  }

  async loginFailuresSince(client: string, since: number) {
    return this.#db.get('SELECT count(*) AS n FROM login_failures WHERE client = ? AND at > ?', client, since)
      ?.n as number;
  }

  async recordLoginFailure(client: string, at: number) {
    this.#db.transaction(() => {
      this.#db.run('INSERT INTO login_failures (client, at) VALUES (?, ?)', client, at);
      // Rows older than the 15-minute window no longer count; pruning those of every address keeps
      // the table small even when each failure comes from another address.
      this.#db.run('DELETE FROM login_failures WHERE at < ?', at - 3_600_000);
    });
  }

  async clearLoginFailures(client: string) {
    this.#db.run('DELETE FROM login_failures WHERE client = ?', client);
  }

  async endSession(id: string, expiresAt: number, now: number) {
    this.#db.transaction(() => {
      this.#db.run('INSERT OR IGNORE INTO ended_sessions (id, expires_at) VALUES (?, ?)', id, expiresAt);
      this.#db.run('DELETE FROM ended_sessions WHERE expires_at <= ?', now);
    });
  }

  async sessionEnded(id: string) {
    return this.#db.get('SELECT 1 AS ended FROM ended_sessions WHERE id = ?', id) !== undefined;
  }
  async takeLoginTurn(client: string, holder: string, now: number, until: number) {
    // One upsert decides: the row is written only when free or lapsed, and RETURNING says whether it was.
    const row = this.#db.get(
      `INSERT INTO login_turns (client, holder, until) VALUES (?, ?, ?)
       ON CONFLICT (client) DO UPDATE SET holder = excluded.holder, until = excluded.until WHERE login_turns.until <= ?
       RETURNING holder`,
      client,
      holder,
      until,
      now,
    );
    return row !== undefined;
  }

  async releaseLoginTurn(client: string, holder: string) {
    this.#db.run('DELETE FROM login_turns WHERE client = ? AND holder = ?', client, holder);
  }

  async recordSignIn(account: Account) {
    this.#db.run(
      'INSERT INTO accounts (subject, display, last_sign_in_at) VALUES (?, ?, ?) ON CONFLICT (subject) DO UPDATE SET display = excluded.display, last_sign_in_at = excluded.last_sign_in_at',
      account.subject,
      account.display,
      account.lastSignInAt,
    );
  }

  async knownAccounts(limit: number) {
    return this.#db
      .all('SELECT subject, display, last_sign_in_at FROM accounts ORDER BY last_sign_in_at DESC LIMIT ?', limit)
      .map((r): Account => ({
        subject: r.subject as string,
        display: r.display as string,
        lastSignInAt: r.last_sign_in_at as number,
      }));
  }

  async createEnrollToken(t: { hash: string; owner: string; createdBy: string; createdAt: number; expiresAt: number }) {
    this.#db.run(
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
    return this.#db.transaction((): Device | undefined => {
      // The conditional UPDATE is the single-use check: only one enrollment can flip used_at.
      const token = this.#db.get(
        'UPDATE enroll_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING owner',
        input.now,
        input.tokenHash,
        input.now,
      );
      if (!token) return undefined;
      const row = this.#db.get(
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
    const row = this.#db.get('SELECT * FROM devices WHERE credential_hash = ?', hash);
    return row && { ...deviceFrom(row), credentialHash: row.credential_hash as string };
  }

  async deviceVisibleTo(viewer: Viewer, id: string) {
    const row = this.#db.get(
      'SELECT * FROM devices WHERE id = ? AND (? OR owner = ?)',
      id,
      viewer.admin ? 1 : 0,
      viewer.subject,
    );
    return row && deviceFrom(row);
  }

  async devicesVisibleTo(viewer: Viewer, req: PageRequest) {
    const rows = viewer.admin
      ? this.#db.allArrays(listQueries.allDevices, cursor(req.before), req.limit + 1)
      : this.#db.allArrays(listQueries.ownDevices, viewer.subject, cursor(req.before), req.limit + 1);
    return page(rows, req.limit, deviceFromArray, seqOf);
  }

  async revokeDevice(viewer: Viewer, id: string, at: number) {
    return (
      this.#db.run(
        'UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND (? OR owner = ?)',
        at,
        id,
        viewer.admin ? 1 : 0,
        viewer.subject,
      ) === 1
    );
  }

  putRun(run: Run & { sha256: string }): Promise<PutRunResult> {
    return this.#runs.putRun(run);
  }

  runVisibleTo(viewer: Viewer, device: string, id: string): Promise<StoredRun | undefined> {
    return this.#runs.runVisibleTo(viewer, device, id);
  }

  runsVisibleTo(viewer: Viewer, req: PageRequest): Promise<Page<RunSummary>> {
    return this.#runs.runsVisibleTo(viewer, req);
  }

  deleteRun(viewer: Viewer, device: string, id: string): Promise<boolean> {
    return this.#runs.deleteRun(viewer, device, id);
  }

  countsVisibleTo(viewer: Viewer) {
    return this.#runs.countsVisibleTo(viewer);
  }

  uploadsPerDay(viewer: Viewer, days: number, now: number): Promise<number[]> {
    return this.#runs.uploadsPerDay(viewer, days, now);
  }

  async probe(now: number) {
    this.#db.run('INSERT INTO probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at', now);
    if (this.#db.get('SELECT at FROM probe WHERE id = 1')?.at !== now)
      throw new StoreError('probe', 'read back a different value');
  }

  async close() {
    this.#db.close();
  }
}
