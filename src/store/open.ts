/**
 * Opens the store the configuration names (PostgreSQL when PADDOCK_DATABASE_URL is set, else
 * SQLite), with its secret settings sealed under PADDOCK_SEAL_KEY_FILE (seal_store.ts).
 */
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/parse.ts';
import { innermostReason } from './errors.ts';
import { sealStore } from './seal_store.ts';
import { openSqliteStore } from './sqlite/store.ts';
import type { Store } from './store.ts';

type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePool' | 'sealKeyFile'>;

/** A store that cannot be opened, or whose seal key is wrong, is a bad setting: the error names the variable. */
export async function openStore(config: StoreConfig): Promise<Store> {
  const store = await openUnsealed(config);
  try {
    return await sealStore(store, config.sealKeyFile);
  } catch (err) {
    await store.close();
    throw err;
  }
}

async function openUnsealed(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    // Loaded only when used, so a SQLite deployment never loads pg.
    const { openPostgresStore } = await import('./postgres/store.ts');
    try {
      return await openPostgresStore(config.databaseUrl, { poolSize: config.databasePool });
    } catch (err) {
      throw new ConfigError('PADDOCK_DATABASE_URL', `cannot use the database: ${innermostReason(err)}`);
    }
  }
  try {
    return openSqliteStore(config.dataDir);
  } catch (err) {
    throw new ConfigError('PADDOCK_DATA_DIR', `cannot use ${config.dataDir}: ${innermostReason(err)}`);
  }
}
