/** Reading query plans for the plan tests: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN of a prepared statement. */
import type { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { numbered, type Param } from '../../src/store/sql.ts';

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
  const { rows } = await c.query(`EXPLAIN EXECUTE ${name}(${values.join(', ')})`);
  return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
}
