// Issue 42, item 4: PaddockSweepStalled could not catch a first sweep that hangs, because the
// last-sweep gauge was absent until the first minute sweep ended, and the retention sweep's never
// appeared with nothing retained. Both are now exported from the start, holding the process's start
// until a sweep finishes; with nothing retained, the retention sweeper still runs and finishes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { retentionSweeper } from '../../src/sweep/retention.ts';
import { fakeClock } from '../support/fake_clock.ts';

const gauge = (text: string, sweep: string) =>
  Number(new RegExp(`^paddock_sweep_last_timestamp_seconds\\{sweep="${sweep}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

test('the last-sweep gauge holds the process’s start until a sweep finishes, then the sweep’s end', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const clock = fakeClock();
    const started = clock.now();
    const metrics = createMetrics({ store, clock, staleAfterMs: 60_000 });
    const finished: { minute?: number; retention?: number } = {};
    metrics.sweep('minute', 60_000, async () => finished.minute);
    metrics.sweep('retention', 600_000, async () => finished.retention);

    // A first sweep that never finishes: the gauges hold the start, however long it hangs.
    clock.advance(3_600_000);
    let text = await metrics.registry.metrics();
    assert.equal(gauge(text, 'minute'), started / 1000);
    assert.equal(gauge(text, 'retention'), started / 1000);

    // A sweep finished: its end. A record older than this process (another instance's, before it started): the start.
    finished.minute = clock.now();
    finished.retention = started - 86_400_000;
    text = await metrics.registry.metrics();
    assert.equal(gauge(text, 'minute'), clock.now() / 1000);
    assert.equal(gauge(text, 'retention'), started / 1000);
  } finally {
    await store.close();
  }
});

test('with nothing retained, the retention sweeper runs on its timer, each run finishing at once and touching nothing', async () => {
  const touched: string[] = [];
  const store = {
    takeLease: async () => (touched.push('lease'), true),
    releaseLease: async () => void touched.push('release'),
    enqueue: async () => void touched.push('enqueue'),
    deleteExpiredRuns: async () => (touched.push('delete'), { runs: 0, bytes: 0 }),
    setSetting: async () => void touched.push('setting'),
  };
  const clock = fakeClock();
  const sweep = retentionSweeper({ store, logger: memoryLogger(), clock, retention: {}, intervalMs: 5 });
  assert.equal(sweep.finishedAt(), undefined, 'none before the first run');
  sweep.start();
  try {
    for (let i = 0; i < 100 && sweep.finishedAt() === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(sweep.finishedAt(), clock.now());
    clock.advance(1000);
    const before = sweep.finishedAt();
    for (let i = 0; i < 100 && sweep.finishedAt() === before; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(sweep.finishedAt(), clock.now(), 'each run finishes');
  } finally {
    await sweep.stop();
  }
  assert.deepEqual(touched, [], 'nothing retained: no lease, no store write');
});

test('a retention sweep that finishes records its end; one that finds the lease held by another does not', async () => {
  let held = false;
  const store = {
    takeLease: async () => !held,
    releaseLease: async () => undefined,
    enqueue: async () => undefined,
    deleteExpiredRuns: async () => ({ runs: 0, bytes: 0 }),
    setSetting: async () => undefined,
  };
  const clock = fakeClock();
  const sweep = retentionSweeper({
    store,
    logger: memoryLogger(),
    clock,
    retention: { full: 86_400_000 },
    intervalMs: 5,
  });
  await sweep.sweep();
  const first = clock.now();
  assert.equal(sweep.finishedAt(), first);
  held = true;
  clock.advance(1000);
  assert.equal(await sweep.sweep(), undefined);
  assert.equal(sweep.finishedAt(), first, "another instance's sweep is the store's record, not this one's");
});
