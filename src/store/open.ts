/** Opens the store the configuration names: PostgreSQL when PADDOCK_DATABASE_URL is set, else SQLite. */
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/parse.ts';
import { innermostReason } from './errors.ts';
import { openSqliteStore } from './sqlite/store.ts';
import type { Store } from './store.ts';

/** A store that cannot be opened is a bad setting: the error names the variable (never its value). */
export async function openStore(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePool'>): Promise<Store> {
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
