/**
 * Two real `paddock serve` processes on one fresh PostgreSQL database, with the one seal key file
 * they share (docs/contract.md sections 18 and 23), and a store of the test's own on the same
 * database. `stop` ends both (SIGTERM), closes the store and drops the database and the folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { databaseUrl, dropDatabase, freshDatabase, sharedDatabaseEnv } from './postgres.ts';
import { paddock, type PaddockProcess } from './process.ts';

export interface TwoInstances {
  store: Store;
  instances: Array<{ p: PaddockProcess; base: string }>;
  stop: () => Promise<void>;
}

export async function twoInstances(name: string, adminPassword: string): Promise<TwoInstances> {
  const database = await freshDatabase();
  const dir = await mkdtemp(join(tmpdir(), `paddock-multi-${name}-`));
  const instances: TwoInstances['instances'] = [];
  for (const instance of ['a', 'b']) {
    const p = paddock(['serve'], {
      PADDOCK_LISTEN: '127.0.0.1:0',
      PADDOCK_DATA_DIR: join(dir, instance),
      ...sharedDatabaseEnv(databaseUrl(database), dir),
      PADDOCK_ADMIN_PASSWORD: adminPassword,
    });
    const base = (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    instances.push({ p, base });
  }
  const store = await openPostgresStore(databaseUrl(database));
  const stop = async () => {
    await store.close();
    for (const { p } of instances) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    await rm(dir, { recursive: true, force: true });
    await dropDatabase(database);
  };
  return { store, instances, stop };
}
