/** Opens the store the configuration names: PostgreSQL when PADDOCK_DATABASE_URL is set, else SQLite. */
import type { Config } from '../config/config.ts';
import { openSqliteStore } from './sqlite/sqlite_store.ts';
import type { Store } from './store.ts';

export async function openStore(config: Pick<Config, 'dataDir' | 'databaseUrl'>): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    // Loaded only when used, so a SQLite deployment never loads pg.
    const { openPostgresStore } = await import('./postgres/pg_store.ts');
    return openPostgresStore(config.databaseUrl);
  }
  return openSqliteStore(config.dataDir);
}
