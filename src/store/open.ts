/** Opens the store the configuration names: PostgreSQL when PADDOCK_DATABASE_URL is set, else SQLite. */
import type { Config } from '../config/config.ts';
import { StoreError } from './errors.ts';
import { openSqliteStore } from './sqlite/sqlite_store.ts';
import type { Store } from './store.ts';

export async function openStore(config: Pick<Config, 'dataDir' | 'databaseUrl'>): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    throw new StoreError('open', 'the PostgreSQL store is not available in this build yet; unset PADDOCK_DATABASE_URL');
  }
  return openSqliteStore(config.dataDir);
}
