// The retention sweep (src/sweep/retention.ts) on a real store with an injected clock: runs
// past their level's retention are deleted oldest first in bounded batches, levels without a
// retention are kept, one `runs.swept` record per sweep that deleted something (counts only, as
// system), the last sweep written for the dashboard, and one instance at a time through the lease.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { auditLogger } from '../../src/audit/audit_logger.ts';
import { LAST_SWEEP_SETTING, parseSweepRecord } from '../../src/domain/retention.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { retentionSweeper, SWEEP_LEASE } from '../../src/sweep/retention.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import type { PrivacyLevel } from '../../src/domain/privacy.ts';
import { fakeClock } from '../support/fake_clock.ts';

const DAY = 86_400_000;
const ADMIN = { subject: 'local:admin', admin: true };

async function fleet(store: Store, now: number) {
  await store.createEnrollToken({ hash: 't', owner: 'oidc:ann', createdBy: 'x', createdAt: 0, expiresAt: 1e15 });
  assert.ok(await store.enrollDevice({ tokenHash: 't', now: 0, deviceId: 'd', name: 'd', credentialHash: 'c' }));
  // Per level: 7 runs 40 to 46 days old (10 bytes each) and 2 runs 1 day old.
  for (const privacy of ['full', 'redacted', 'minimal'] as PrivacyLevel[])
    for (let i = 0; i < 9; i++) {
      const body = new Uint8Array(10).fill(i);
      await store.putRun({
        device: 'd',
        id: `${privacy}-${i}`,
        contentType: 'application/octet-stream',
        privacy,
        size: body.length,
        uploadedAt: now - (i < 7 ? (46 - i) * DAY : DAY),
        body,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
    }
}

const ids = async (store: Store, privacy: PrivacyLevel) =>
  (await store.runsVisibleTo(ADMIN, { limit: 50 }, { privacy })).items.map((r) => r.id).sort();

test('runs past their level retention go in bounded batches, oldest first; one audit record per sweep that deleted', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  await fleet(store, clock.now());
  const memory = memoryLogger();
  const logger = auditLogger(memory, store, clock);
  const sweep = retentionSweeper({
    store,
    logger,
    clock,
    retention: { full: 30 * DAY, minimal: 43 * DAY },
    intervalMs: 600_000,
    batch: 2,
    batches: 2,
  });
  // full: 7 expired, 4 per sweep; minimal: the 3 older than 43 days (46, 45, 44); redacted: kept.
  const first = await sweep.sweep();
  assert.deepEqual(first, { at: clock.now(), result: 'ok', runs: { full: 4, redacted: 0, minimal: 3 }, bytes: 70 });
  assert.deepEqual(await ids(store, 'full'), ['full-4', 'full-5', 'full-6', 'full-7', 'full-8'], 'oldest first');
  assert.deepEqual(await ids(store, 'minimal'), [
    'minimal-3',
    'minimal-4',
    'minimal-5',
    'minimal-6',
    'minimal-7',
    'minimal-8',
  ]);
  assert.equal((await ids(store, 'redacted')).length, 9);
  assert.deepEqual((await sweep.sweep())?.runs, { full: 3, redacted: 0, minimal: 0 });
  const idle = await sweep.sweep();
  assert.deepEqual(idle, { at: clock.now(), result: 'ok', runs: { full: 0, redacted: 0, minimal: 0 }, bytes: 0 });
  assert.deepEqual(parseSweepRecord(await store.getSetting(LAST_SWEEP_SETTING)), idle, 'the last sweep is stored');
  assert.deepEqual(await store.storedBytesByLevel(ADMIN), { full: 20, redacted: 90, minimal: 60 });

  const swept = memory.records.filter((r) => r.event === 'runs.swept');
  assert.deepEqual(swept, [
    { level: 'info', event: 'runs.swept', account: 'system', full: 4, redacted: 0, minimal: 3, bytes: 70 },
    { level: 'info', event: 'runs.swept', account: 'system', full: 3, redacted: 0, minimal: 0, bytes: 30 },
  ]);
  await logger.flush();
  const trail = (await store.auditPage({ event: 'runs.swept' }, { limit: 10 })).items;
  assert.deepEqual(
    trail.map((r) => [r.account, r.device, r.run, r.detail]),
    [
      ['system', null, null, 'full=3 redacted=0 minimal=0 bytes=30'],
      ['system', null, null, 'full=4 redacted=0 minimal=3 bytes=70'],
    ],
  );
  clock.advance(30 * DAY);
  assert.deepEqual((await sweep.sweep())?.runs, { full: 2, redacted: 0, minimal: 4 }, 'the clock decides');
  await store.close();
});

test('with no retention set nothing is swept, no lease taken, nothing written (its timer still runs: test/unit/sweep_gauge)', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  await fleet(store, clock.now());
  const sweep = retentionSweeper({ store, logger: memoryLogger(), clock, retention: {}, intervalMs: 5 });
  assert.equal(await sweep.sweep(), undefined);
  assert.equal(await store.takeLease(SWEEP_LEASE, 'other', clock.now(), clock.now() + 1), true, 'lease free');
  assert.equal(await store.getSetting(LAST_SWEEP_SETTING), undefined);
  await store.close();
});

test('one instance at a time: a lease held elsewhere skips the sweep until it expires; the sweep releases its own', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  await fleet(store, clock.now());
  const opts = { store, clock, retention: { full: 30 * DAY }, intervalMs: 600_000 };
  const a = retentionSweeper({ ...opts, logger: memoryLogger(), holder: 'a' });
  assert.equal(await store.takeLease(SWEEP_LEASE, 'b', clock.now(), clock.now() + 600_000), true);
  assert.equal(await a.sweep(), undefined, 'b holds the lease');
  assert.equal((await ids(store, 'full')).length, 9);
  clock.advance(600_000);
  assert.deepEqual((await a.sweep())?.runs, { full: 7, redacted: 0, minimal: 0 }, 'b lapsed');
  assert.equal(
    await store.takeLease(SWEEP_LEASE, 'b', clock.now(), clock.now() + 1),
    true,
    'released by a after its sweep',
  );
  await store.close();
});

test('a sweep that loses its lease mid-way stops; a failing store is logged and recorded as partial', async () => {
  const clock = fakeClock();
  const logs = memoryLogger();
  let held = 0;
  const settings = new Map<string, string>();
  const store = {
    // Taken for the first batch, lost before the second.
    takeLease: async () => held++ === 0,
    releaseLease: async () => undefined,
    enqueue: async () => undefined,
    deleteExpiredRuns: async () => ({ runs: 2, bytes: 5 }),
    setSetting: async (name: string, value: string) => void settings.set(name, value),
  };
  const sweep = retentionSweeper({
    store,
    logger: logs,
    clock,
    retention: { redacted: DAY },
    intervalMs: 1000,
    batch: 2,
  });
  assert.deepEqual(await sweep.sweep(), {
    at: clock.now(),
    result: 'partial',
    runs: { full: 0, redacted: 2, minimal: 0 },
    bytes: 5,
  });
  const failing = retentionSweeper({
    store: { ...store, takeLease: async () => true, deleteExpiredRuns: () => Promise.reject(new Error('store: full')) },
    logger: logs,
    clock,
    retention: { redacted: DAY },
    intervalMs: 1000,
  });
  assert.equal((await failing.sweep())?.result, 'partial');
  assert.equal(parseSweepRecord(settings.get(LAST_SWEEP_SETTING))?.result, 'partial');
  assert.deepEqual(
    logs.records.filter((r) => r.event === 'sweeper.failed'),
    [{ level: 'error', event: 'sweeper.failed', error: 'retention sweep: store: full' }],
  );
});

test('the lease is released even when the last sweep cannot be written', async () => {
  const logs = memoryLogger();
  const released: string[] = [];
  const store = {
    takeLease: async () => true,
    releaseLease: async (name: string, holder: string) => void released.push(`${name}:${holder}`),
    enqueue: async () => undefined,
    deleteExpiredRuns: async () => ({ runs: 1, bytes: 3 }),
    setSetting: () => Promise.reject(new Error('store: read-only')),
  };
  const sweep = retentionSweeper({
    store,
    logger: logs,
    clock: fakeClock(),
    retention: { full: DAY },
    intervalMs: 1000,
    holder: 'me',
  });
  assert.equal((await sweep.sweep())?.bytes, 3);
  assert.deepEqual(released, [`${SWEEP_LEASE}:me`]);
  assert.deepEqual(
    logs.records.map((r) => r.event),
    ['runs.swept', 'sweeper.failed'],
  );
});

test('start sweeps at the interval and stop leaves no timer behind', async () => {
  let sweeps = 0;
  const store = {
    takeLease: async () => true,
    releaseLease: async () => undefined,
    enqueue: async () => undefined,
    deleteExpiredRuns: async () => (sweeps++, { runs: 0, bytes: 0 }),
    setSetting: async () => undefined,
  };
  const sweep = retentionSweeper({
    store,
    logger: memoryLogger(),
    clock: fakeClock(),
    retention: { full: DAY },
    intervalMs: 5,
  });
  sweep.start();
  await new Promise((resolve) => setTimeout(resolve, 40));
  await sweep.stop();
  const seen = sweeps;
  assert.ok(seen >= 2, `${seen} sweeps`);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(sweeps, seen, 'stopped');
});
