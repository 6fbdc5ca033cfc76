// The sweeper (src/sweep/sweeper.ts) on a real store with an injected clock: audit records past
// PADDOCK_AUDIT_RETENTION are pruned, stale devices revoked only when PADDOCK_REVOKE_STALE_AFTER is
// set, each run in bounded batches, each revocation logged and audited as `system`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditLogger } from '../../src/audit/audit_logger.ts';
import { parseDuration } from '../../src/config/parse.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { type Sweeper, sweeper, type SweeperOptions } from '../../src/sweep/sweeper.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { fakeClock } from '../support/fake_clock.ts';

const DAY = 86_400_000;

/** What one run did: nothing but `done`. */
const did = (done: Partial<Awaited<ReturnType<Sweeper['sweep']>>>) => ({
  pruned: 0,
  stale: 0,
  revoked: 0,
  expired: 0,
  overlaps: 0,
  states: 0,
  replaced: 0,
  ...done,
});

/** A store with nothing to sweep, but for the methods in `over`. */
const idleStore = (over: Partial<SweeperOptions['store']>): SweeperOptions['store'] => ({
  pruneAudit: async () => 0,
  revokeStale: async () => [],
  markStale: async () => [],
  cancelDeviceRequests: async () => [],
  expireCollections: async () => [],
  enqueue: async () => undefined,
  endOverlaps: async () => 0,
  pruneOidcStates: async () => 0,
  endReplaced: async () => 0,
  ...over,
});

async function enroll(store: Store, id: string, at: number) {
  await store.createEnrollToken({
    hash: `t-${id}`,
    owner: 'oidc:ann',
    createdBy: 'local:admin',
    createdAt: at,
    expiresAt: at + DAY,
  });
  assert.ok(await store.enrollDevice({ tokenHash: `t-${id}`, now: at, deviceId: id, name: id, credentialHash: id }));
}

test('audit records older than the retention are pruned, a bounded number per run', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const start = clock.now();
  for (let i = 0; i < 30; i++)
    await store.appendAudit({
      at: start - i * DAY,
      event: 'run.deleted',
      account: 'a',
      client: null,
      device: null,
      run: null,
      detail: '',
    });
  const logs = memoryLogger();
  const sweep = sweeper({
    store,
    logger: logs,
    clock,
    auditRetentionMs: parseDuration('10d'),
    revokeStaleAfterMs: undefined,
    batch: 4,
    batches: 3,
  });
  // Records 11 to 29 days old are past retention: 19, of which one run removes 3 batches of 4.
  assert.deepEqual(await sweep.sweep(), did({ pruned: 12 }));
  assert.deepEqual(await sweep.sweep(), did({ pruned: 7 }));
  assert.deepEqual(await sweep.sweep(), did({}));
  const left = (await store.auditPage({}, { limit: 100 })).items.map((r) => (start - r.at) / DAY);
  assert.deepEqual(left, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  clock.advance(DAY);
  assert.deepEqual(await sweep.sweep(), did({ pruned: 1 }), 'the clock decides what is old');
  assert.deepEqual(logs.records, []);
  await store.close();
});

test('stale devices are revoked only when PADDOCK_REVOKE_STALE_AFTER is set, in batches, audited as system', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const now = clock.now();
  for (let i = 0; i < 7; i++) await enroll(store, `old${i}`, now - 40 * DAY);
  await enroll(store, 'recent', now - 5 * DAY);
  const memory = memoryLogger();
  const logger = auditLogger(memory, store, clock);
  const off = sweeper({ store, logger, clock, auditRetentionMs: parseDuration('365d'), revokeStaleAfterMs: undefined });
  assert.deepEqual(await off.sweep(), did({}), 'off by default');
  const on = sweeper({
    store,
    logger,
    clock,
    auditRetentionMs: parseDuration('365d'),
    revokeStaleAfterMs: parseDuration('30d'),
    batch: 2,
    batches: 2,
  });
  assert.deepEqual(await on.sweep(), did({ revoked: 4 }));
  assert.deepEqual(await on.sweep(), did({ revoked: 3 }));
  assert.deepEqual(await on.sweep(), did({}));
  const admin = { subject: 'local:admin', admin: true };
  assert.equal((await store.deviceVisibleTo(admin, 'recent'))?.revokedAt, null);
  assert.equal((await store.deviceVisibleTo(admin, 'old3'))?.revokedAt, now);
  const revoked = memory.records.filter((r) => r.event === 'device.revoked');
  assert.equal(revoked.length, 7);
  assert.deepEqual(revoked[0], {
    level: 'info',
    event: 'device.revoked',
    account: 'system',
    device: revoked[0]?.device,
    reason: 'stale',
  });
  await logger.flush();
  const trail = (await store.auditPage({ actor: 'system' }, { limit: 20 })).items;
  assert.equal(trail.length, 7);
  assert.deepEqual(
    { ...trail[0], device: undefined },
    {
      at: now,
      event: 'device.revoked',
      account: 'system',
      client: null,
      device: undefined,
      run: null,
      detail: 'reason=stale',
    },
  );
  clock.advance(26 * DAY);
  assert.deepEqual(await on.sweep(), did({ revoked: 1 }), 'the recent one, once 30 days unseen');
  await store.close();
});

test('a failing store is logged and the run goes on; start and stop leave no timer behind', async () => {
  const logs = memoryLogger();
  const clock = fakeClock();
  const failing = idleStore({
    pruneAudit: () => Promise.reject(new Error('store: unavailable')),
    revokeStale: () => Promise.resolve(['d9']),
  });
  const sweep = sweeper({ store: failing, logger: logs, clock, auditRetentionMs: DAY, revokeStaleAfterMs: DAY });
  assert.deepEqual(await sweep.sweep(), did({ revoked: 1 }));
  assert.deepEqual(logs.records[0], {
    level: 'error',
    event: 'sweeper.failed',
    error: 'prune audit: store: unavailable',
  });
  let runs = 0;
  const counting = sweeper({
    store: idleStore({ pruneAudit: async () => (runs++, 0) }),
    logger: logs,
    clock,
    auditRetentionMs: DAY,
    revokeStaleAfterMs: undefined,
  });
  counting.start(5);
  await new Promise((resolve) => setTimeout(resolve, 40));
  await counting.stop();
  const after = runs;
  assert.ok(after >= 2, `ran ${after} times`);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(runs, after, 'stopped');
});

test('collections past their expiry are closed by the sweep, their open targets expired and announced', async () => {
  const { openSqliteStore } = await import('../../src/store/sqlite/store.ts');
  const { createCollection } = await import('../../src/actions/collections.ts');
  const store = openSqliteStore(':memory:');
  const logs = memoryLogger();
  const clock = fakeClock();
  await store.createEnrollToken({
    hash: 'tok',
    owner: 'oidc:ann',
    createdBy: 'local:admin',
    createdAt: clock.now(),
    expiresAt: clock.now() + DAY,
  });
  await store.enrollDevice({ tokenHash: 'tok', now: clock.now(), deviceId: 'd1', name: 'd1', credentialHash: 'c1' });
  const out = await createCollection(
    { store, logger: logs, clock },
    { subject: 'local:admin', admin: true, client: null },
    { privacy: 'full', reason: 'soon', expiresIn: 60, scope: { devices: ['d1'] } },
  );
  assert.ok(out.ok);
  const sweep = sweeper({ store, logger: logs, clock, auditRetentionMs: DAY, revokeStaleAfterMs: undefined });
  assert.equal((await sweep.sweep()).expired, 0, 'not yet');
  clock.advance(61_000);
  assert.equal((await sweep.sweep()).expired, 1);
  const closed = logs.records.find((r) => r.event === 'collection.closed');
  assert.deepEqual([closed?.collection, closed?.expired], [out.ok ? out.collection.id : '', 1]);
  await store.close();
});

test('finishedAt says when the last run finished (the stalled-sweep gauge): none before, and not while one hangs', async () => {
  const clock = fakeClock();
  let hang = false;
  let release: () => void = () => undefined;
  const sweep = sweeper({
    store: idleStore({
      pruneAudit: () =>
        hang ? new Promise<number>((resolve) => (release = () => resolve(0))) : Promise.reject(new Error('down')),
    }),
    logger: memoryLogger(),
    clock,
    auditRetentionMs: DAY,
    revokeStaleAfterMs: undefined,
  });
  assert.equal(sweep.finishedAt(), undefined);
  // A job that fails still lets the run finish.
  await sweep.sweep();
  const first = clock.now();
  assert.equal(sweep.finishedAt(), first);
  hang = true;
  clock.advance(60_000);
  const stuck = sweep.sweep();
  clock.advance(180_000);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(sweep.finishedAt(), first, 'a run that hangs on the store has not finished');
  release();
  await stuck;
  assert.equal(sweep.finishedAt(), clock.now());
});

test('sign-in states that came back are swept past their 600 s (and 60 s), a batch per run; live ones stay (docs/contract.md section 23)', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const now = clock.now();
  for (let i = 0; i < 7; i++) assert.ok(await store.oidcStateCameBack(`expired-${i}`, now - 1_000 - i));
  assert.ok(await store.oidcStateCameBack('live', now + 660_000));
  const sweep = sweeper({
    store,
    logger: memoryLogger(),
    clock,
    auditRetentionMs: DAY,
    revokeStaleAfterMs: undefined,
    batch: 4,
  });
  assert.equal((await sweep.sweep()).states, 4);
  assert.equal((await sweep.sweep()).states, 3);
  assert.equal((await sweep.sweep()).states, 0);
  assert.equal(await store.oidcStateCameBack('live', now + 660_000), false, 'the live one was kept');
  assert.equal(await store.oidcStateCameBack('expired-0', now + 660_000), true, 'an expired one was not');
  await store.close();
});
