/**
 * A suite of tests on both stores: on SQLite in memory, and on PostgreSQL in a schema of its own
 * for each store opened (skipped without a server, failed on CI), the schemas dropped afterwards.
 */
import { after } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from './postgres.ts';

/** A suite named after its store, opening a fresh one with `open`; skipped with `skip`'s reason. */
export type StoreSuite = (name: string, open: () => Promise<Store>, skip: string | false) => void;

/** Declares `suite` for SQLite, then for PostgreSQL. */
export async function onBothStores(suite: StoreSuite): Promise<void> {
  suite('sqlite', async () => openSqliteStore(':memory:'), false);
  const available = await postgresAvailable();
  after(() => (available ? dropSchemas() : undefined));
  suite('postgres', async () => openPostgresStore(PG_URL, { schema: freshSchema() }), !available && SKIP_REASON);
}
