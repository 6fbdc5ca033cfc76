// The audit trail loses nothing under load (issue 22): when its queue is full, an action's answer
// waits until its record has a place in the queue (backpressure); it is neither dropped nor refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditRecord } from '../../src/domain/audit.ts';
import { enrollDevice, harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('with the audit queue full, a revoke is done but its answer waits for room; every record is stored', async () => {
  const h = await harness({ auditQueueMax: 1 });
  const releases: Array<() => void> = [];
  let held = true;
  try {
    const devices = [];
    for (let i = 0; i < 3; i++) devices.push((await enrollDevice(h, ACCOUNTS.user.subject, `d${i}`)).device);
    await h.flushAudit();
    // From now on the store takes audit rows only when released, one at a time.
    const append = h.store.appendAudit.bind(h.store);
    h.store.appendAudit = async (row: AuditRecord) => {
      if (held) await new Promise<void>((resolve) => releases.push(resolve));
      await append(row);
    };
    const admin = h.signIn(ACCOUNTS.admin);
    const revoke = (device: string) =>
      h.request(`/devices/${device}/revoke`, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: admin.csrf }).toString(),
      });
    // The first row is taken by the writer (and held by the store), the second fills the queue.
    assert.equal((await revoke(devices[0] ?? '')).status, 303);
    for (let i = 0; i < 3; i++) await tick();
    assert.equal(releases.length, 1, 'the first row is being written');
    assert.equal((await revoke(devices[1] ?? '')).status, 303);
    // The third finds the queue full: the device is revoked, but the answer waits for room.
    let answered: Response | undefined;
    const third = revoke(devices[2] ?? '').then((res) => (answered = res));
    for (let i = 0; i < 10; i++) await tick();
    assert.equal(answered, undefined, 'the answer waits while the audit queue is full');
    assert.ok((await h.store.deviceVisibleTo(ACCOUNTS.admin, devices[2] ?? ''))?.revokedAt, 'the action is done');
    assert.equal(h.logs.filter((r) => r.event === 'device.revoked').length, 3, 'the log has every event at once');
    // One write finishes: the waiting row takes its place and the answer goes out.
    releases.shift()?.();
    assert.equal((await third).status, 303);
    const flushed = h.flushAudit();
    while (
      releases.length > 0 ||
      (await h.store.auditPage({ event: 'device.revoked' }, { limit: 10 })).items.length < 3
    ) {
      releases.shift()?.();
      await tick();
    }
    await flushed;
    const stored = await h.store.auditPage({ event: 'device.revoked' }, { limit: 10 });
    assert.deepEqual(stored.items.map((r) => r.device).sort(), [...devices].sort(), 'no record was dropped');
  } finally {
    // A failed assertion must not leave the writer held: close() flushes the queue.
    held = false;
    for (const release of releases.splice(0)) release();
    await h.close();
  }
});
