/**
 * The PostgreSQL connection: a pool, migrations under an advisory lock, and query helpers that turn
 * a lost connection into a StoreError (answered 503) while the pool reconnects by itself.
 */
import { pgIndexWords, pgRunCandidates } from './run_words.ts';
import { pgDeviceSearch, SEARCH_TEXT } from './device_search.ts';
import pg from 'pg';
import { StoreError } from '../errors.ts';
import { numberedName, NUMBERED_SENTINEL, pendingMigrations } from '../migrations.ts';
import { fanOutSql, noteStatement } from '../outbox.ts';
import { numbered, type Param, type Row, type Sql } from '../sql.ts';
import { migrations, numberedMigrations } from './migrations.ts';
import { connectionConfig, createPool, isConnectionError, type PgOptions, unavailable } from './pool.ts';

/** Arbitrary but fixed: every Paddock instance takes this advisory lock to migrate. */
const MIGRATION_LOCK = 7_214_003_001;

/** A statement inside a transaction, in the `?` style of the domain files. */
export type Query = (sql: string, ...params: Param[]) => Promise<Row[]>;

export async function openPgDb(url: string, opts: PgOptions = {}): Promise<PgDb> {
  try {
    await migrate(url, opts);
  } catch (err) {
    throw new StoreError('open', `unable to open the PostgreSQL store: ${(err as Error).message}`, err);
  }
  return new PgDb(createPool(url, opts));
}

/**
 * Several instances may start at once: the advisory lock lets exactly one migrate at a time. A
 * connection of its own, without the pool's query timeout, since waiting for another instance's
 * migration may take long; ending it releases the lock even if the unlock is never sent.
 */
async function migrate(url: string, opts: PgOptions): Promise<void> {
  const client = new pg.Client(connectionConfig(url, opts));
  // A lost connection fails the pending query; the event itself must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    if (opts.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema.replaceAll('"', '')}"`);
    await client.query('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
    await client.query('BEGIN');
    try {
      await adoptNumbered(client);
      const { rows } = await client.query<{ name: string }>('SELECT name FROM migrations');
      for (const m of pendingMigrations(
        migrations,
        rows.map((r) => r.name),
      )) {
        await client.query(m.sql);
        await client.query('INSERT INTO migrations (name, applied_at) VALUES ($1, $2)', [m.name, Date.now()]);
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** As on SQLite (see sqlite/db.ts): numbered versions become names, and a sentinel stays behind. */
async function adoptNumbered(client: pg.Client): Promise<void> {
  const { rows: exists } = await client.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS e");
  if (!(exists[0] as { e: boolean }).e) return;
  const { rows } = await client.query<{ version: number }>(
    'SELECT version FROM schema_migrations WHERE version <> $1',
    [NUMBERED_SENTINEL],
  );
  for (const { version } of rows)
    await client.query('INSERT INTO migrations (name, applied_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      numberedName(numberedMigrations, version),
      Date.now(),
    ]);
  await client.query('DELETE FROM schema_migrations');
  await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
    NUMBERED_SENTINEL,
    Date.now(),
  ]);
}

/**
 * Statements in the `?` style of the domain files, numbered once and prepared by name on each
 * connection; but a device search is planned for each pattern (an unnamed statement). A named one
 * may settle on a generic plan, which knows nothing of the pattern: it walked the devices newest
 * first checking each, 56 to 103 ms at 100,000 devices for a search the index answers in 0.4 ms,
 * and once it was chosen every search on that connection paid it (device_search.ts).
 */
class Statements {
  #named = new Map<string, { name?: string; text: string }>();
  get(sql: string): { name?: string; text: string } {
    let statement = this.#named.get(sql);
    if (!statement) {
      const text = numbered(sql);
      statement = sql.includes(SEARCH_TEXT) ? { text } : { name: `paddock_${this.#named.size}`, text };
      this.#named.set(sql, statement);
    }
    return statement;
  }
}

export class PgDb {
  #pool: pg.Pool;
  #statements = new Statements();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async #query(sql: string, params: Param[], rowMode?: 'array'): Promise<pg.QueryResult> {
    try {
      return await this.#pool.query({ ...this.#statements.get(sql), values: params, ...(rowMode ? { rowMode } : {}) });
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** The domain files' view of the pool. */
  readonly sql: Sql = {
    get: async (sql, ...params) => (await this.#query(sql, params)).rows[0] as Row | undefined,
    all: async (sql, ...params) => (await this.#query(sql, params)).rows as Row[],
    arrays: async (sql, ...params) => (await this.#query(sql, params, 'array')).rows as unknown[][],
    run: async (sql, ...params) => (await this.#query(sql, params)).rowCount ?? 0,
    // The database server's disk is its own to keep room on: nothing is held in reserve here.
    critical: async (sql, ...params) => (await this.#query(sql, params)).rowCount ?? 0,
    searchDevices: pgDeviceSearch(
      async (sql, ...params) => (await this.#query(sql, params)).rows[0] as Row | undefined,
    ),
    indexWords: pgIndexWords,
    runCandidates: pgRunCandidates(async (sql) => (await this.#query(sql, [])).rows[0] as Row | undefined),
    noted: (notes, sql, ...params) =>
      this.transaction(async (q) => {
        const rows = await q(sql, ...params);
        for (const n of notes(rows)) {
          const [s, p] = noteStatement(n);
          await q(s, ...p);
        }
        return rows;
      }),
    atomically: (statements) =>
      this.transaction(async (_q, run) => {
        const counts: number[] = [];
        for (const [s, p] of statements) counts.push(await run(s, ...p));
        return counts;
      }),
    skipLocked: 'FOR UPDATE SKIP LOCKED',
    limitEachArm: true,
    fanOut: fanOutSql.postgres,
  };

  /** One statement whose parameters may be arrays (unnest), for the uploads' group commit (runs.ts). */
  async rowsOf(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return (await this.#query(sql, params as Param[])).rows as Row[];
  }

  /** `work` gets the statement helpers of the transaction: rows (q), and rows changed (run). */
  async transaction<T>(
    work: (q: Query, run: (sql: string, ...params: Param[]) => Promise<number>) => Promise<T>,
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    // A checked-out client has no listener of the pool's: without this one, a connection lost
    // during the transaction would emit an unhandled 'error' and end the process.
    let broken = false;
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(
        async (sql, ...params) => (await client.query({ ...this.#statements.get(sql), values: params })).rows as Row[],
        async (sql, ...params) => (await client.query({ ...this.#statements.get(sql), values: params })).rowCount ?? 0,
      );
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // A dead connection needs no ROLLBACK: the server rolls back when it goes.
      if (broken || isConnectionError(err)) broken = true;
      else await client.query('ROLLBACK').catch(() => (broken = true));
      throw unavailable(err);
    } finally {
      client.off('error', onError);
      // A broken client is discarded, not handed to the next request.
      client.release(broken);
    }
  }

  async end(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }
}
