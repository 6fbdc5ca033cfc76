/**
 * Enrollment on PostgreSQL: a use of the token is consumed and the device created in one
 * transaction; the row lock of the conditional UPDATE (READ COMMITTED: a waiting UPDATE checks its
 * WHERE again on the row as the holder left it) keeps the uses exact across every instance.
 */
import { devicesSql, enrolled, insertDeviceArgs } from '../devices.ts';
import type { DevicesStore } from '../store.ts';
import { noteStatements } from '../outbox.ts';
import type { PgDb } from './db.ts';

export function pgEnroll(db: PgDb): Pick<DevicesStore, 'enrollDevice'> {
  return {
    enrollDevice(input, note) {
      return db.transaction(async (q) => {
        const [token] = await q(devicesSql.consumeToken, input.now, input.tokenHash, input.now);
        if (!token) return undefined;
        const [row] = await q(devicesSql.insertDevice, ...insertDeviceArgs(input, token));
        const device = enrolled(row);
        if (device && note) for (const [s, p] of noteStatements(note(device))) await q(s, ...p);
        return device;
      });
    },
  };
}
