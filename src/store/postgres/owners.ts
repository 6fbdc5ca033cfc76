/**
 * Handing over on PostgreSQL: a batch is one transaction that locks its devices (FOR UPDATE, in
 * the order of their ids), so an upload that read a device's old owner commits first and its run
 * moves with the others, and one that comes after reads the new owner. Uploads of other devices
 * do not wait.
 */
import { handOverSql, postgresListed } from '../owners.ts';
import { noteRow, subscriptionsFrom, subscriptionsSql } from '../outbox.ts';
import type { OwnersStore } from '../store.ts';
import type { PgDb } from './db.ts';

const sql = handOverSql(postgresListed, 'FOR UPDATE');

export function pgOwnerTransactions(db: PgDb): Pick<OwnersStore, 'handOverDevices' | 'handOverPace'> {
  return {
    handOverPace: { batch: 200, pause: 0 },
    handOverDevices(ids, to, note) {
      return db.transaction(async (q) => {
        const found = await q(sql.lock, JSON.stringify(ids), to);
        if (found.length === 0) return [];
        const moving = JSON.stringify(found.map((r) => r.id));
        await q(sql.setOwner, to, moving);
        await q(sql.moveRuns, to, moving, to);
        const moved = found.map((r) => ({ device: r.id as string, from: r.owner as string }));
        const subscriptions = subscriptionsFrom(await q(subscriptionsSql));
        for (const one of moved) {
          const row = subscriptions.length === 0 ? undefined : noteRow(note(one), subscriptions);
          if (row) await q(row[0], ...row[1]);
        }
        return moved;
      });
    },
  };
}
