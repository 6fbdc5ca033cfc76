/**
 * The PostgreSQL on this machine for tests: each store gets a schema of its own in database
 * `test`, dropped afterwards. Without a server, the tests fail on CI and are skipped elsewhere.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_URL = process.env.PADDOCK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL is required on CI and unreachable at ${PG_URL}`, { cause: err });
    return false;
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

/** A database URL whose connections use `schema`. */
export function urlWithSchema(schema: string): string {
  return `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

export async function dropSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  try {
    await client.connect();
    for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function createSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await client.end();
}
