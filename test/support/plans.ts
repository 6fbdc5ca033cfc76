/** Reading query plans for the plan tests: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN of a prepared statement. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { numbered, type Param } from '../../src/store/sql.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { admin, databaseUrl, dropDatabase, freshDatabase } from './postgres.ts';

/** SQLite's plan, its steps joined by `|`. */
export function sqlitePlan(db: DatabaseSync, sql: string): string {
  return db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all()
    .map((r) => String((r as { detail: string }).detail))
    .join('|');
}

/**
 * PostgreSQL's plan for the statement as the store runs it (prepared, `?` numbered), with these
 * arguments, one line a step. `name` must be unique on the connection.
 */
export async function postgresPlan(c: pg.Client, name: string, sql: string, args: readonly Param[]): Promise<string> {
  await c.query(`PREPARE ${name} AS ${numbered(sql)}`);
  const values = args.map((a) => (typeof a === 'boolean' ? String(a) : `'${String(a)}'`));
  const { rows } = await c.query(`EXPLAIN EXECUTE ${name}${values.length ? `(${values.join(', ')})` : ''}`);
  return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
}

/**
 * Runs `work` on the schema of a freshly migrated SQLite store in a temporary directory, then
 * removes it: SQLite's plans are read from an empty store (its planner does not weigh sizes).
 */
export async function withSqliteSchema(work: (db: DatabaseSync) => void | Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-plan-'));
  try {
    await openSqliteStore(dir).close();
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    try {
      await work(db);
    } finally {
      db.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `work` with a connection on a freshly migrated PostgreSQL store in a database of its own,
 * dropped after. Another suite's open transaction in the same database keeps VACUUM from marking
 * pages all-visible, which moves the planner's costs at test sizes from run to run; in a database
 * of its own only this test's transactions count. With sequential scans priced out too, a plan
 * shows the index each query is built for, whatever the suites next to it are doing.
 */
export async function withPostgresSchema(work: (c: pg.Client) => Promise<void>): Promise<void> {
  const database = await freshDatabase();
  try {
    await (await openPostgresStore(databaseUrl(database))).close();
    await admin(async (c) => {
      await c.query('SET enable_seqscan = off');
      await work(c);
    }, database);
  } finally {
    await dropDatabase(database);
  }
}
