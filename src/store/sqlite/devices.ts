/**
 * Enrollment and label changes on SQLite, each one synchronous transaction: a use of the token is
 * consumed and the device created with the token's labels; a device's labels are read, checked and
 * written with nothing else running between.
 */
import { devicesSql, enrolled, insertDeviceArgs } from '../devices.ts';
import { labelsFrom, labelsSql, planLabelChange, tokenLabelsFrom } from '../labels.ts';
import { enrollmentFacts } from '../facts.ts';
import { scope } from '../sql.ts';
import type { DevicesStore } from '../store.ts';
import { noteStatement } from '../outbox.ts';
import type { Db } from './db.ts';

export function sqliteDeviceTransactions(db: Db): Pick<DevicesStore, 'enrollDevice' | 'changeLabels'> {
  return {
    async enrollDevice(input, note) {
      return db.transaction(() => {
        const token = db.get(devicesSql.consumeToken, input.now, input.tokenHash, input.now);
        if (!token) return undefined;
        const row = db.get(devicesSql.insertDevice, ...insertDeviceArgs(input, token));
        if (row)
          for (const [key, value] of Object.entries(tokenLabelsFrom(token.labels)))
            db.run(labelsSql.put, Number(row.seq), key, value);
        if (row) for (const [sql, ...params] of enrollmentFacts(Number(row.seq), input)) db.run(sql, ...params);
        const device = enrolled(row);
        if (device && note)
          for (const one of [note(device)].flat()) {
            const [s, p] = noteStatement(one);
            db.run(s, ...p);
          }
        return device;
      });
    },
    async changeLabels(viewer, id, change, note) {
      return db.transaction(() => {
        const device = db.get(labelsSql.device, id, ...scope(viewer));
        if (!device) return { outcome: 'unknown' as const };
        const seq = Number(device.seq);
        const plan = planLabelChange(seq, labelsFrom(db.all(labelsSql.ofSeq, seq)), change);
        if (!plan.ok) return { outcome: 'refused' as const, error: plan.error };
        for (const [sql, ...params] of plan.value.statements) db.run(sql, ...params);
        if (note && plan.value.changed.length > 0) {
          const [s, p] = noteStatement(note(plan.value.changed));
          db.run(s, ...p);
        }
        return { outcome: 'changed' as const, labels: plan.value.labels, changed: plan.value.changed };
      });
    },
  };
}
