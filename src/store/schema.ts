/**
 * The schema version of a store, read without changing anything (for `paddock check`, `backup`
 * and `restore`): the migrations it has against the ones this build knows; and, for `check`, a
 * setting kept in it. Opening a store for
 * serving migrates it instead (sqlite/db.ts, postgres/db.ts), and refuses a newer one the same way.
 */
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { newerSchema } from './migrations.ts';
import { migrations as pgMigrations } from './postgres/migrations.ts';
import { connectionConfig } from './postgres/pool.ts';
import { settingsSql } from './stored_settings.ts';
import { numbered } from './sql.ts';
import { migrations as sqliteMigrations } from './sqlite/migrations.ts';

export interface SchemaState {
  /** Migrations applied to the store: its schema version (0 for a new store). */
  version: number;
  /** Migrations this build knows: the version it migrates to. */
  known: number;
  /** Applied migrations this build does not know: a newer build migrated the store. */
  unknown: string[];
}

/** Why this build must not use the store, or undefined when it may (migrating it if older). */
export function schemaRefusal(state: SchemaState): string | undefined {
  return state.unknown.length > 0 ? newerSchema(state.version, state.known, state.unknown) : undefined;
}

function state(applied: readonly string[], known: ReadonlyArray<{ name: string }>): SchemaState {
  const names = new Set(known.map((m) => m.name));
  return { version: applied.length, known: known.length, unknown: applied.filter((n) => !names.has(n)) };
}

/** A SQLite database file's schema, opened read-only; undefined when there is no file. */
export function sqliteSchema(path: string): SchemaState | undefined {
  if (!existsSync(path)) return undefined;
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get();
    const applied = table ? (db.prepare('SELECT name FROM migrations').all() as Array<{ name: string }>) : [];
    return state(
      applied.map((r) => r.name),
      sqliteMigrations,
    );
  } finally {
    db.close();
  }
}

/** A PostgreSQL database's schema, read in one short connection. */
export async function postgresSchema(url: string): Promise<SchemaState> {
  const client = new pg.Client(connectionConfig(url, {}));
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string | null }>("SELECT to_regclass('migrations')::text AS t");
    const applied = rows[0]?.t ? (await client.query<{ name: string }>('SELECT name FROM migrations')).rows : [];
    return state(
      applied.map((r) => r.name),
      pgMigrations,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A setting of a served store, read-only; undefined when there is no store or no such setting yet. */
export async function storedSetting(
  store: { databaseUrl: string | undefined; sqlitePath: string },
  name: string,
): Promise<string | undefined> {
  if (store.databaseUrl === undefined) {
    if (!existsSync(store.sqlitePath)) return undefined;
    const db = new DatabaseSync(store.sqlitePath, { readOnly: true });
    try {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").get()) return undefined;
      return db.prepare(settingsSql.get).get(name)?.value as string | undefined;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client(connectionConfig(store.databaseUrl, {}));
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string | null }>("SELECT to_regclass('settings')::text AS t");
    if (!rows[0]?.t) return undefined;
    const found = await client.query<{ value: string }>(numbered(settingsSql.get), [name]);
    return found.rows[0]?.value;
  } finally {
    await client.end().catch(() => undefined);
  }
}
