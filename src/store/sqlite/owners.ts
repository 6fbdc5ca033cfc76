/**
 * Handing over on SQLite: a batch is one synchronous transaction on the one connection, so no
 * upload runs between reading a device's owner and moving its runs.
 */
import { handOverSql, sqliteListed } from '../owners.ts';
import { noteRow, subscriptionsFrom, subscriptionsSql } from '../outbox.ts';
import type { OwnersStore } from '../store.ts';
import type { Db } from './db.ts';

const sql = handOverSql(sqliteListed, '');

export function sqliteOwnerTransactions(db: Db): Pick<OwnersStore, 'handOverDevices' | 'handOverPace'> {
  return {
    handOverPace: { batch: 50, pause: 2 },
    async handOverDevices(ids, to, note) {
      return db.transaction(() => {
        const found = db.all(sql.lock, JSON.stringify(ids), to);
        if (found.length === 0) return [];
        const moving = JSON.stringify(found.map((r) => r.id));
        db.run(sql.setOwner, to, moving);
        db.run(sql.moveRuns, to, moving, to);
        const moved = found.map((r) => ({ device: r.id as string, from: r.owner as string }));
        const subscriptions = subscriptionsFrom(db.all(subscriptionsSql));
        for (const one of moved) {
          const row = subscriptions.length === 0 ? undefined : noteRow(note(one), subscriptions);
          if (row) db.run(row[0], ...row[1]);
        }
        return moved;
      });
    },
  };
}
