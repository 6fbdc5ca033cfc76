/**
 * The Store on PostgreSQL, mirroring store/sqlite, for several instances that share one database.
 * Single use, idempotent uploads and revokes hold across instances because each is one
 * conditional statement or one transaction. Runs are in runs.ts; the connection in db.ts.
 */
import { StoreError } from '../errors.ts';
import { cursor, deviceFrom, page, type Row } from '../rows.ts';
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
import { openPgDb, type PgDb } from './db.ts';
import type { PgOptions } from './pool.ts';
import { PgRuns } from './runs.ts';

export async function openPostgresStore(url: string, opts: PgOptions = {}): Promise<Store> {
  return new PgStore(await openPgDb(url, opts));
}

class PgStore implements Store {
  #db: PgDb;
  #runs: PgRuns;

  constructor(db: PgDb) {
    this.#db = db;
    this.#runs = new PgRuns(db);
  }

  async getSetting(name: string) {
    return (await this.#db.row('SELECT value FROM settings WHERE name = $1', [name]))?.value as string | undefined;
  }

  async setSettingIfAbsent(name: string, value: string) {
    await this.#db.rows('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      name,
      value,
    ]);
    return (await this.getSetting(name)) as string;
  }

  async setSetting(name: string, value: string) {
    await this.#db.rows(
      'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      [name, value],
    );
  }

  async passwordHash(username: string) {
    return (await this.#db.row('SELECT hash FROM credentials WHERE username = $1', [username]))?.hash as
      string | undefined;
  }

  async setPasswordHash(username: string, hash: string) {
    await this.#db.rows(
      'INSERT INTO credentials (username, hash, updated_at) VALUES ($1, $2, $3) ON CONFLICT (username) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
      [username, hash, Date.now()],
    );
  }

  async createPasswordHash(username: string, hash: string) {
    return (
      (await this.#db.count(
        'INSERT INTO credentials (username, hash, updated_at) VALUES ($1, $2, $3) ON CONFLICT (username) DO NOTHING',
        [username, hash, Date.now()],
      )) === 1
    );
  }

  async loginFailuresSince(client: string, since: number) {
    return (
      await this.#db.row('SELECT count(*)::int AS n FROM login_failures WHERE client = $1 AND at > $2', [client, since])
    )?.n as number;
  }

  async recordLoginFailure(client: string, at: number) {
    await this.#db.transaction(async (q) => {
      await q('INSERT INTO login_failures (client, at) VALUES ($1, $2)', [client, at]);
      // Of every address (see the SQLite store).
      await q('DELETE FROM login_failures WHERE at < $1', [at - 3_600_000]);
    });
  }

  async clearLoginFailures(client: string) {
    await this.#db.rows('DELETE FROM login_failures WHERE client = $1', [client]);
  }

  async endSession(id: string, expiresAt: number, now: number) {
    await this.#db.rows('INSERT INTO ended_sessions (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
      id,
      expiresAt,
    ]);
    await this.#db.rows('DELETE FROM ended_sessions WHERE expires_at <= $1', [now]);
  }

  async sessionEnded(id: string) {
    return (await this.#db.rows('SELECT 1 FROM ended_sessions WHERE id = $1', [id])).length > 0;
  }
  async takeLoginTurn(client: string, holder: string, now: number, until: number) {
    // The upsert locks the row, so of two instances asking at once exactly one sees it free or lapsed.
    const row = await this.#db.row(
      `INSERT INTO login_turns (client, holder, until) VALUES ($1, $2, $3)
       ON CONFLICT (client) DO UPDATE SET holder = excluded.holder, until = excluded.until WHERE login_turns.until <= $4
       RETURNING holder`,
      [client, holder, until, now],
    );
    return row !== undefined;
  }

  async releaseLoginTurn(client: string, holder: string) {
    await this.#db.count('DELETE FROM login_turns WHERE client = $1 AND holder = $2', [client, holder]);
  }

  async recordSignIn(a: Account) {
    await this.#db.rows(
      'INSERT INTO accounts (subject, display, last_sign_in_at) VALUES ($1, $2, $3) ON CONFLICT (subject) DO UPDATE SET display = excluded.display, last_sign_in_at = excluded.last_sign_in_at',
      [a.subject, a.display, a.lastSignInAt],
    );
  }

  async knownAccounts(limit: number) {
    const rows = await this.#db.rows(
      'SELECT subject, display, last_sign_in_at FROM accounts ORDER BY last_sign_in_at DESC LIMIT $1',
      [limit],
    );
    return rows.map((r): Account => ({
      subject: r.subject as string,
      display: r.display as string,
      lastSignInAt: r.last_sign_in_at as number,
    }));
  }

  async createEnrollToken(t: { hash: string; owner: string; createdBy: string; createdAt: number; expiresAt: number }) {
    await this.#db.rows(
      'INSERT INTO enroll_tokens (hash, owner, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [t.hash, t.owner, t.createdBy, t.createdAt, t.expiresAt],
    );
  }

  async enrollDevice(input: {
    tokenHash: string;
    now: number;
    deviceId: string;
    name: string;
    credentialHash: string;
  }) {
    return this.#db.transaction(async (q): Promise<Device | undefined> => {
      // The row lock of this conditional UPDATE makes a token single-use across every instance.
      const token = (
        await q(
          'UPDATE enroll_tokens SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING owner',
          [input.now, input.tokenHash],
        )
      ).rows[0] as Row | undefined;
      if (!token) return undefined;
      const { rows } = await q(
        'INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING *',
        [input.deviceId, input.name, token.owner, input.credentialHash, input.now],
      );
      return rows[0] ? deviceFrom(rows[0] as Row) : undefined;
    });
  }

  async deviceByCredential(hash: string) {
    const row = await this.#db.row('SELECT * FROM devices WHERE credential_hash = $1', [hash]);
    return row && { ...deviceFrom(row), credentialHash: row.credential_hash as string };
  }

  async deviceVisibleTo(viewer: Viewer, id: string) {
    const row = await this.#db.row('SELECT * FROM devices WHERE id = $1 AND ($2 OR owner = $3)', [
      id,
      viewer.admin,
      viewer.subject,
    ]);
    return row && deviceFrom(row);
  }

  async devicesVisibleTo(viewer: Viewer, req: PageRequest) {
    const rows = viewer.admin
      ? await this.#db.rows('SELECT * FROM devices WHERE seq < $1 ORDER BY seq DESC LIMIT $2', [
          cursor(req.before),
          req.limit + 1,
        ])
      : await this.#db.rows('SELECT * FROM devices WHERE owner = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3', [
          viewer.subject,
          cursor(req.before),
          req.limit + 1,
        ]);
    return page(rows, req.limit, (r) => ({
      ...deviceFrom(r),
      lastUploadAt: (r.last_upload_at as number | null) ?? null,
    }));
  }

  async revokeDevice(viewer: Viewer, id: string, at: number) {
    return (
      (await this.#db.count(
        'UPDATE devices SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL AND ($3 OR owner = $4)',
        [at, id, viewer.admin, viewer.subject],
      )) === 1
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
    await this.#db.rows('INSERT INTO probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = excluded.at', [
      now,
    ]);
    if ((await this.#db.row('SELECT at FROM probe WHERE id = 1'))?.at !== now)
      throw new StoreError('probe', 'read back a different value');
  }

  async close() {
    await this.#db.end();
  }
}
