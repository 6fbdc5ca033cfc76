/**
 * The Store on PostgreSQL, mirroring store/sqlite method by method, for several instances that
 * share one database. Single use, idempotent uploads and revokes hold across instances because
 * each is one conditional statement or one transaction.
 */
import type pg from 'pg';
import { StoreError } from '../errors.ts';
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
import { chartStart, deviceFrom, perDay, summaryFrom, type Row } from '../rows.ts';
import { pgMigrations } from './migrations.ts';
import { createPool, unavailable } from './pool.ts';

/** Same chunking as SQLite: runs above 256 KiB are stored in chunks and streamed. */
const CHUNK_SIZE = 256 * 1024;
/** Arbitrary but fixed: every Paddock instance takes this advisory lock to migrate. */
const MIGRATION_LOCK = 7_214_003_001;

export async function openPostgresStore(url: string, opts: { schema?: string } = {}): Promise<Store> {
  const pool = createPool(url, opts.schema);
  try {
    await migrate(pool, opts.schema);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new StoreError('open', `unable to open the PostgreSQL store: ${(err as Error).message}`, err);
  }
  return new PgStore(pool);
}

/** Several instances may start at once: the advisory lock lets exactly one migrate at a time. */
async function migrate(pool: pg.Pool, schema?: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replaceAll('"', '')}"`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)',
    );
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    const current = rows[0]?.v ?? 0;
    if (current > pgMigrations.length)
      throw new Error(`database schema version ${current} is newer than this build knows (${pgMigrations.length})`);
    for (let version = current + 1; version <= pgMigrations.length; version++) {
      await client.query('BEGIN');
      try {
        await client.query(pgMigrations[version - 1] ?? '');
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
          version,
          Date.now(),
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

function page<T>(rows: Row[], limit: number, map: (row: Row) => T): Page<T> {
  const items = rows.slice(0, limit).map(map);
  const last = rows[limit - 1];
  return rows.length > limit && last ? { items, next: String(last.seq) } : { items };
}

const cursor = (before: string | undefined) => (before === undefined ? Number.MAX_SAFE_INTEGER : Number(before));

class PgStore implements Store {
  #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async #rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    try {
      return (await this.#pool.query(sql, params)).rows as Row[];
    } catch (err) {
      throw unavailable(err);
    }
  }

  async #row(sql: string, params: unknown[] = []): Promise<Row | undefined> {
    return (await this.#rows(sql, params))[0];
  }

  async #count(sql: string, params: unknown[]): Promise<number> {
    try {
      return (await this.#pool.query(sql, params)).rowCount ?? 0;
    } catch (err) {
      throw unavailable(err);
    }
  }

  async #transaction<T>(
    work: (q: (sql: string, params?: unknown[]) => Promise<pg.QueryResult>) => Promise<T>,
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    try {
      await client.query('BEGIN');
      const result = await work((sql, params = []) => client.query(sql, params));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw unavailable(err);
    } finally {
      client.release();
    }
  }

  async getSetting(name: string) {
    return (await this.#row('SELECT value FROM settings WHERE name = $1', [name]))?.value as string | undefined;
  }

  async setSettingIfAbsent(name: string, value: string) {
    await this.#rows('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, value]);
    return (await this.getSetting(name)) as string;
  }

  async setSetting(name: string, value: string) {
    await this.#rows(
      'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      [name, value],
    );
  }

  async passwordHash(username: string) {
    return (await this.#row('SELECT hash FROM credentials WHERE username = $1', [username]))?.hash as
      string | undefined;
  }

  async setPasswordHash(username: string, hash: string) {
    await this.#rows(
      'INSERT INTO credentials (username, hash, updated_at) VALUES ($1, $2, $3) ON CONFLICT (username) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
      [username, hash, Date.now()],
    );
  }

  async createPasswordHash(username: string, hash: string) {
    return (
      (await this.#count(
        'INSERT INTO credentials (username, hash, updated_at) VALUES ($1, $2, $3) ON CONFLICT (username) DO NOTHING',
        [username, hash, Date.now()],
      )) === 1
    );
  }

  async loginFailuresSince(client: string, since: number) {
    return (
      await this.#row('SELECT count(*)::int AS n FROM login_failures WHERE client = $1 AND at > $2', [client, since])
    )?.n as number;
  }

  async recordLoginFailure(client: string, at: number) {
    await this.#transaction(async (q) => {
      await q('INSERT INTO login_failures (client, at) VALUES ($1, $2)', [client, at]);
      await q('DELETE FROM login_failures WHERE client = $1 AND at < $2', [client, at - 3_600_000]);
    });
  }

  async clearLoginFailures(client: string) {
    await this.#rows('DELETE FROM login_failures WHERE client = $1', [client]);
  }

  async recordSignIn(a: Account) {
    await this.#rows(
      'INSERT INTO accounts (subject, display, last_sign_in_at) VALUES ($1, $2, $3) ON CONFLICT (subject) DO UPDATE SET display = excluded.display, last_sign_in_at = excluded.last_sign_in_at',
      [a.subject, a.display, a.lastSignInAt],
    );
  }

  async knownAccounts(limit: number) {
    const rows = await this.#rows(
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
    await this.#rows(
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
    return this.#transaction(async (q): Promise<Device | undefined> => {
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
    const row = await this.#row('SELECT * FROM devices WHERE credential_hash = $1', [hash]);
    return row && { ...deviceFrom(row), credentialHash: row.credential_hash as string };
  }

  async deviceVisibleTo(viewer: Viewer, id: string) {
    const row = await this.#row('SELECT * FROM devices WHERE id = $1 AND ($2 OR owner = $3)', [
      id,
      viewer.admin,
      viewer.subject,
    ]);
    return row && deviceFrom(row);
  }

  async devicesVisibleTo(viewer: Viewer, req: PageRequest) {
    const rows = viewer.admin
      ? await this.#rows('SELECT * FROM devices WHERE seq < $1 ORDER BY seq DESC LIMIT $2', [
          cursor(req.before),
          req.limit + 1,
        ])
      : await this.#rows('SELECT * FROM devices WHERE owner = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3', [
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
      (await this.#count(
        'UPDATE devices SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL AND ($3 OR owner = $4)',
        [at, id, viewer.admin, viewer.subject],
      )) === 1
    );
  }

  async putRun(run: Run & { sha256: string }): Promise<PutRunResult> {
    return this.#transaction(async (q) => {
      // The row lock orders this upload with a concurrent revoke (and with other uploads of the device, which also update it).
      const device = (
        await q('SELECT owner FROM devices WHERE id = $1 AND revoked_at IS NULL FOR NO KEY UPDATE', [run.device])
      ).rows[0] as Row | undefined;
      if (!device) return 'device-unknown';
      const chunked = run.body.byteLength > CHUNK_SIZE;
      const inserted = await q(
        `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, chunked, body)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (device_id, id) DO NOTHING RETURNING seq`,
        [
          run.device,
          run.id,
          device.owner,
          run.contentType,
          run.privacy,
          run.size,
          run.sha256,
          run.uploadedAt,
          chunked,
          chunked ? Buffer.alloc(0) : Buffer.from(run.body),
        ],
      );
      const seq = (inserted.rows[0] as Row | undefined)?.seq;
      if (seq !== undefined) {
        for (let n = 0, at = 0; chunked && at < run.body.byteLength; n++, at += CHUNK_SIZE) {
          await q('INSERT INTO run_chunks (run_seq, n, data) VALUES ($1, $2, $3)', [
            seq,
            n,
            Buffer.from(run.body.subarray(at, at + CHUNK_SIZE)),
          ]);
        }
        await q('UPDATE devices SET last_seen_at = $1, last_upload_at = $1 WHERE id = $2', [
          run.uploadedAt,
          run.device,
        ]);
        return 'created';
      }
      // Another upload of this id committed first (the unique index made this one wait for it).
      const existing = (await q('SELECT sha256 FROM runs WHERE device_id = $1 AND id = $2', [run.device, run.id]))
        .rows[0] as Row | undefined;
      return existing?.sha256 === run.sha256 ? 'identical' : 'conflict';
    });
  }

  async runVisibleTo(viewer: Viewer, device: string, id: string): Promise<StoredRun | undefined> {
    const row = await this.#row(
      'SELECT seq, device_id, id, content_type, privacy, size, uploaded_at, chunked FROM runs WHERE device_id = $1 AND id = $2 AND ($3 OR owner = $4)',
      [device, id, viewer.admin, viewer.subject],
    );
    if (!row) return undefined;
    const seq = row.seq as number;
    const read = row.chunked ? () => this.#chunks(seq) : () => this.#inline(seq);
    return { ...summaryFrom(row), read };
  }

  async *#inline(seq: number): AsyncGenerator<Uint8Array> {
    const row = await this.#row('SELECT body FROM runs WHERE seq = $1', [seq]);
    if (row) yield row.body as Uint8Array;
  }

  async *#chunks(seq: number): AsyncGenerator<Uint8Array> {
    for (let n = 0; ; n++) {
      const row = await this.#row('SELECT data FROM run_chunks WHERE run_seq = $1 AND n = $2', [seq, n]);
      if (!row) return;
      yield row.data as Uint8Array;
    }
  }

  async runsVisibleTo(viewer: Viewer, req: PageRequest): Promise<Page<RunSummary>> {
    const columns = 'seq, device_id, id, content_type, privacy, size, uploaded_at';
    const rows = viewer.admin
      ? await this.#rows(`SELECT ${columns} FROM runs WHERE seq < $1 ORDER BY seq DESC LIMIT $2`, [
          cursor(req.before),
          req.limit + 1,
        ])
      : await this.#rows(`SELECT ${columns} FROM runs WHERE owner = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`, [
          viewer.subject,
          cursor(req.before),
          req.limit + 1,
        ]);
    return page(rows, req.limit, summaryFrom);
  }

  async deleteRun(viewer: Viewer, device: string, id: string) {
    return (
      (await this.#count('DELETE FROM runs WHERE device_id = $1 AND id = $2 AND ($3 OR owner = $4)', [
        device,
        id,
        viewer.admin,
        viewer.subject,
      ])) === 1
    );
  }

  async countsVisibleTo(viewer: Viewer) {
    const d = await this.#row(
      'SELECT count(*)::int AS n, (count(*) FILTER (WHERE revoked_at IS NULL))::int AS active FROM devices WHERE ($1 OR owner = $2)',
      [viewer.admin, viewer.subject],
    );
    const r = await this.#row('SELECT count(*)::int AS n FROM runs WHERE ($1 OR owner = $2)', [
      viewer.admin,
      viewer.subject,
    ]);
    return { devices: d?.n as number, activeDevices: d?.active as number, runs: r?.n as number };
  }

  async uploadsPerDay(viewer: Viewer, days: number, now: number) {
    const since = chartStart(days, now);
    const rows = viewer.admin
      ? await this.#rows(
          'SELECT uploaded_at / 86400000 AS day, count(*)::int AS n FROM runs WHERE uploaded_at >= $1 GROUP BY day',
          [since],
        )
      : await this.#rows(
          'SELECT uploaded_at / 86400000 AS day, count(*)::int AS n FROM runs WHERE owner = $1 AND uploaded_at >= $2 GROUP BY day',
          [viewer.subject, since],
        );
    return perDay(rows, days, now);
  }

  async probe(now: number) {
    await this.#rows('INSERT INTO probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = excluded.at', [
      now,
    ]);
    if ((await this.#row('SELECT at FROM probe WHERE id = 1'))?.at !== now)
      throw new StoreError('probe', 'read back a different value');
  }

  async close() {
    await this.#pool.end().catch(() => undefined);
  }
}
