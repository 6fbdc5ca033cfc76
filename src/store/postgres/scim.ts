/**
 * The SCIM store's guarded transaction on PostgreSQL (store/scim.ts): one transaction on one pooled
 * connection; the guard's row lock holds the resource until the commit, so of two writers at the
 * same version one wins and the other misses.
 */
import { noteStatement } from '../outbox.ts';
import type { ScimWrite } from '../scim.ts';
import type { PgDb } from './db.ts';

/** unique_violation. */
const UNIQUE = '23505';

export function pgScimWrite(db: PgDb): ScimWrite {
  return async function scimWrite(guard, then, notes) {
    try {
      return await db.transaction(async (q, run) => {
        const rows = await q(guard[0], ...guard[1]);
        if (rows.length === 0) return 'missed' as const;
        for (const [sql, params] of [...then(rows), ...notes.map(noteStatement)]) await run(sql, ...params);
        return 'done' as const;
      });
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE) return 'taken';
      throw err;
    }
  };
}
