/**
 * Enrollment and label changes on PostgreSQL, each one transaction. Enrollment: a use of the token
 * is consumed and the device created with the token's labels; the row lock of the conditional
 * UPDATE (READ COMMITTED: a waiting UPDATE checks its WHERE again on the row as the holder left it)
 * keeps the uses exact across every instance. A label change locks the device's row first (FOR
 * UPDATE), so two changes of one device run one after the other and the limit of 20 holds.
 */
import { devicesSql, enrolled, insertDeviceArgs } from '../devices.ts';
import { labelsFrom, labelsSql, planLabelChange, tokenLabelsFrom } from '../labels.ts';
import { enrollmentFacts } from '../facts.ts';
import { scope } from '../sql.ts';
import type { DevicesStore } from '../store.ts';
import { noteStatement } from '../outbox.ts';
import type { PgDb } from './db.ts';

const lockDevice = `${labelsSql.device} FOR UPDATE`;

export function pgDeviceTransactions(db: PgDb): Pick<DevicesStore, 'enrollDevice' | 'changeLabels'> {
  return {
    enrollDevice(input, note) {
      return db.transaction(async (q) => {
        const [token] = await q(devicesSql.consumeToken, input.now, input.tokenHash, input.now);
        if (!token) return undefined;
        const [row] = await q(devicesSql.insertDevice, ...insertDeviceArgs(input, token));
        if (row)
          for (const [key, value] of Object.entries(tokenLabelsFrom(token.labels)))
            await q(labelsSql.put, Number(row.seq), key, value);
        if (row) for (const [sql, ...params] of enrollmentFacts(Number(row.seq), input)) await q(sql, ...params);
        const device = enrolled(row);
        if (device && note)
          for (const one of [note(device)].flat()) {
            const [s, p] = noteStatement(one);
            await q(s, ...p);
          }
        return device;
      });
    },
    changeLabels(viewer, id, change, note) {
      return db.transaction(async (q) => {
        const [device] = await q(lockDevice, id, ...scope(viewer));
        if (!device) return { outcome: 'unknown' as const };
        const seq = Number(device.seq);
        const plan = planLabelChange(seq, labelsFrom(await q(labelsSql.ofSeq, seq)), change);
        if (!plan.ok) return { outcome: 'refused' as const, error: plan.error };
        for (const [sql, ...params] of plan.value.statements) await q(sql, ...params);
        if (note && plan.value.changed.length > 0) {
          const [s, p] = noteStatement(note(plan.value.changed));
          await q(s, ...p);
        }
        return { outcome: 'changed' as const, labels: plan.value.labels, changed: plan.value.changed };
      });
    },
  };
}
