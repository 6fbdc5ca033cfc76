/** Enrollment on SQLite: a use of the token is consumed and the device created in one synchronous transaction. */
import { devicesSql, enrolled, insertDeviceArgs } from '../devices.ts';
import type { DevicesStore } from '../store.ts';
import { noteStatements } from '../outbox.ts';
import type { Db } from './db.ts';

export function sqliteEnroll(db: Db): Pick<DevicesStore, 'enrollDevice'> {
  return {
    async enrollDevice(input, note) {
      return db.transaction(() => {
        const token = db.get(devicesSql.consumeToken, input.now, input.tokenHash, input.now);
        if (!token) return undefined;
        const device = enrolled(db.get(devicesSql.insertDevice, ...insertDeviceArgs(input, token)));
        if (device && note) for (const [s, p] of noteStatements(note(device))) db.run(s, ...p);
        return device;
      });
    },
  };
}
