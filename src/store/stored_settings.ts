/** Settings shared by every instance (generated keys, the control certificate) and the self-test's probe. */
import { StoreError } from './errors.ts';
import type { Sql } from './sql.ts';
import type { SettingsStore } from './store.ts';

export const settingsSql = {
  get: 'SELECT value FROM settings WHERE name = ?',
  insertIfAbsent: 'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
  upsert: 'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  replace: 'UPDATE settings SET value = ? WHERE name = ? AND value = ?',
  /**
   * Written and read back by one statement: another instance probing the same row at the same
   * moment cannot come between the write and the read (two statements read its value, a failure).
   */
  probe: 'INSERT INTO probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at RETURNING at',
} as const;

export function settingsStore(db: Sql): SettingsStore {
  const getSetting = async (name: string) => (await db.get(settingsSql.get, name))?.value as string | undefined;
  return {
    getSetting,
    async setSettingIfAbsent(name, value) {
      await db.run(settingsSql.insertIfAbsent, name, value);
      return (await getSetting(name)) as string;
    },
    async setSetting(name, value) {
      await db.run(settingsSql.upsert, name, value);
    },
    async replaceSetting(name, expected, value) {
      return (await db.run(settingsSql.replace, value, name, expected)) === 1;
    },
    async probe(now) {
      if (Number((await db.get(settingsSql.probe, now))?.at) !== now)
        throw new StoreError('probe', 'read back a different value');
    },
  };
}
