/**
 * The PostgreSQL connection: a pool, migrations under an advisory lock, and query helpers that turn
 * a lost connection into a StoreError (answered 503) while the pool reconnects by itself.
 */
import type pg from 'pg';
import { StoreError } from '../errors.ts';
import type { Row } from '../rows.ts';
import { pgMigrations } from './migrations.ts';
import { createPool, unavailable } from './pool.ts';

/** Arbitrary but fixed: every Paddock instance takes this advisory lock to migrate. */
const MIGRATION_LOCK = 7_214_003_001;

export type Query = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

export async function openPgDb(url: string, schema?: string): Promise<PgDb> {
  const pool = createPool(url, schema);
  try {
    await migrate(pool, schema);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new StoreError('open', `unable to open the PostgreSQL store: ${(err as Error).message}`, err);
  }
  return new PgDb(pool);
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

  async end(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }
}
