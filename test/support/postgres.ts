/**
 * The PostgreSQL on this machine for tests: a store gets a schema of its own in database `test`,
 * a group of `paddock serve` processes a database of its own; both are dropped afterwards.
 * Without a server, the tests fail on CI and are skipped elsewhere.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { migrations } from '../../src/store/postgres/migrations.ts';

export const PG_URL = process.env.PADDOCK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The database PG_URL names, where test schemas are made. */
export const TEST_DATABASE = new URL(PG_URL).pathname.slice(1);

export const SKIP_REASON = `no PostgreSQL answers at ${PG_URL}; on CI (CI=true) this fails instead`;

/** True when PostgreSQL answers; on CI (CI=true) an unreachable server is an error, never a skip. */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    // The device search's pg_trgm goes into the first schema of the search path when a store
    // creates it: were that a test schema, dropping it would drop the extension under every other
    // test. It is made once in public instead (two suites racing here: one wins, both go on).
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public').catch(() => undefined);
    return true;
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL is required on CI and unreachable at ${PG_URL}`, { cause: err });
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs statements with a connection of its own, on the `test` database or the one named. */
export async function admin<T>(work: (client: pg.Client) => Promise<T>, database?: string): Promise<T> {
  const client = new pg.Client({ connectionString: database === undefined ? PG_URL : databaseUrl(database) });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const schemas: string[] = [];

export function freshSchema(): string {
  const schema = `paddock_test_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  return schema;
}

export async function dropSchemas(): Promise<void> {
  await admin(async (client) => {
    for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  });
}

/** Creates an empty database `paddock_test_<random>`; returns its name. */
export async function freshDatabase(): Promise<string> {
  const name = `paddock_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  return name;
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** The URL of database `name` on the server of PG_URL, or through a proxy on `port`. */
export function databaseUrl(name: string, port?: number): string {
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  if (port !== undefined) {
    url.hostname = '127.0.0.1';
    url.port = String(port);
  }
  return url.toString();
}

/**
 * The settings that put an instance, or a command, on a database other instances share: its URL,
 * and the one seal key file, in `dir`, that every one of them is given (docs/contract.md section 23).
 */
export function sharedDatabaseEnv(url: string, dir: string) {
  return { PADDOCK_DATABASE_URL: url, PADDOCK_SEAL_KEY_FILE: join(dir, 'seal.key') };
}

/** Where PG_URL points, for a proxy in front of it. */
export function serverAddress(): { host: string; port: number } {
  const url = new URL(PG_URL);
  return { host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) };
}

/** Ends every session on database `name`, as a server shutting down does (clients see 57P01). */
export async function terminateSessions(name: string): Promise<number> {
  return admin(
    async (client) =>
      (
        await client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        )
      ).rowCount ?? 0,
  );
}

/**
 * A new schema on `c` (its search path set to it, then public) holding PostgreSQL's migrations up
 * to the one named, not that one: a database as an older build left it.
 */
export async function migratedUpTo(c: pg.Client, schema: string, name: string): Promise<void> {
  await c.query(`CREATE SCHEMA "${schema}"`);
  await c.query(`SET search_path = "${schema}", public`);
  await c.query('CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
  const upTo = migrations.findIndex((m) => m.name === name);
  if (upTo === -1) throw new Error(`no migration ${name}`);
  for (const m of migrations.slice(0, upTo)) {
    await c.query(m.sql);
    await c.query('INSERT INTO migrations (name, applied_at) VALUES ($1, 0)', [m.name]);
  }
}
