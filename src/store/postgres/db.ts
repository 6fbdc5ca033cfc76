/**
 * The PostgreSQL connection: a pool, migrations under an advisory lock, and query helpers that turn
 * a lost connection into a StoreError (answered 503) while the pool reconnects by itself.
 */
import pg from 'pg';
import { StoreError } from '../errors.ts';
import type { Row } from '../rows.ts';
import { pgMigrations } from './migrations.ts';
import { connectionConfig, createPool, isConnectionError, type PgOptions, unavailable } from './pool.ts';

/** Arbitrary but fixed: every Paddock instance takes this advisory lock to migrate. */
const MIGRATION_LOCK = 7_214_003_001;

export type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

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
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class PgDb {
  #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    try {
      return (await this.#pool.query(sql, params)).rows as Row[];
    } catch (err) {
      throw unavailable(err);
    }
  }

  async row(sql: string, params: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows(sql, params))[0];
  }

  /** Runs a statement; returns the number of rows it changed. */
  async count(sql: string, params: unknown[]): Promise<number> {
    try {
      return (await this.#pool.query(sql, params)).rowCount ?? 0;
    } catch (err) {
      throw unavailable(err);
    }
  }

  async transaction<T>(work: (q: Query) => Promise<T>): Promise<T> {
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
      const result = await work((sql, params = []) => client.query(sql, params));
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
