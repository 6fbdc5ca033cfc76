/**
 * The SCIM store's guarded transaction on SQLite (store/scim.ts): synchronous on the one
 * connection, so nothing runs between the guard and the statements it lets through.
 */
import { noteStatement } from '../outbox.ts';
import type { ScimWrite } from '../scim.ts';
import type { Db } from './db.ts';

/** SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY (extended result codes). */
const UNIQUE = new Set([2067, 1555]);

export function sqliteScimWrite(db: Db): ScimWrite {
  return async function scimWrite(guard, then, notes) {
    try {
      return db.transaction(() => {
        const rows = db.all(guard[0], ...guard[1]);
        if (rows.length === 0) return 'missed' as const;
        for (const [sql, params] of [...then(rows), ...notes.map(noteStatement)]) db.run(sql, ...params);
        return 'done' as const;
      });
    } catch (err) {
      if (UNIQUE.has((err as { errcode?: number }).errcode ?? 0)) return 'taken';
      throw err;
    }
  };
}
