// The store-backed throttle against docs/contract.md section 5 exactly: the delay before an attempt is
// min(2^(f-3), 30) s once f, the failures of that client address in the last 15 minutes, is 3 or
// more; a failure exactly 15 minutes old is no longer "in the last 15 minutes" (the window is
// (now - 15 min, now]); a success resets the count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { storeThrottle } from '../../src/throttle/throttle.ts';
import { fakeClock } from '../support/fake_clock.ts';

const MINUTE = 60_000;
const WINDOW = 15 * MINUTE;

/** A fresh store and throttle with `ages` failures already recorded for client `c` (ms before now). */
async function setup(ages: number[]) {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  for (const age of ages) await store.recordLoginFailure('c', clock.now() - age);
  return { store, clock, throttle: storeThrottle(store, clock) };
}

/** The delay slept before one attempt for client `c` with the given outcome. */
async function delayOf(ages: number[], outcome = false): Promise<number> {
  const { store, clock, throttle } = await setup(ages);
  try {
    let checkedAt = -1;
    const result = await throttle.attempt('c', async () => ((checkedAt = clock.now()), outcome));
    assert.equal(result, outcome);
    const slept = clock.sleeps.reduce((a, b) => a + b, 0);
    assert.equal(checkedAt, clock.now(), 'the delay is slept before the check, not after');
    return slept;
  } finally {
    await store.close();
  }
}

const recent = (n: number) => Array.from({ length: n }, (_, i) => i * 1000);

const schedule: Array<[f: number, seconds: number]> = [
  [0, 0],
  [1, 0],
  [2, 0],
  [3, 1],
  [4, 2],
  [5, 4],
  [6, 8],
  [7, 16],
  [8, 30],
  [9, 30],
  [15, 30],
];

for (const [f, seconds] of schedule) {
  test(`f = ${f} failures in the window → ${seconds} s before the answer`, async () => {
    assert.equal(await delayOf(recent(f)), seconds * 1000);
    assert.equal(await delayOf(recent(f), true), seconds * 1000, 'a successful attempt waits the same');
  });
}

const edges: Array<{ name: string; ages: number[]; seconds: number }> = [
  { name: 'three failures 15 min − 1 ms old still count', ages: [WINDOW - 1, WINDOW - 1, WINDOW - 1], seconds: 1 },
  { name: 'three failures exactly 15 min old no longer count', ages: [WINDOW, WINDOW, WINDOW], seconds: 0 },
  { name: 'one of three exactly 15 min old: f = 2', ages: [WINDOW, 1, 0], seconds: 0 },
  { name: 'four failures, one exactly 15 min old: f = 3', ages: [WINDOW, WINDOW - 1, 1, 0], seconds: 1 },
  { name: 'old failures (16 min, 1 h) do not count', ages: [16 * MINUTE, 60 * MINUTE, 1, 0], seconds: 0 },
  { name: 'failures at this very instant count', ages: [0, 0, 0, 0], seconds: 2 },
];

for (const { name, ages, seconds } of edges) {
  test(`window edge: ${name}`, async () => {
    assert.equal(await delayOf(ages), seconds * 1000);
  });
}

test('the window slides with time: three failures delay an attempt 15 min − 1 ms later, not one after it', async () => {
  const { store, clock, throttle } = await setup([]);
  try {
    for (let i = 0; i < 3; i++) assert.equal(await throttle.attempt('c', async () => false), false);
    assert.deepEqual(clock.sleeps, [], 'f = 0, 1, 2: no delay');
    clock.advance(WINDOW - 1);
    assert.equal(await throttle.attempt('c', async () => false), false);
    assert.deepEqual(clock.sleeps, [1000], 'the three failures still count 15 min − 1 ms later');
    // That 1 s sleep moved the clock past the three failures' window; only the fourth counts now.
    assert.equal(await throttle.attempt('c', async () => false), false);
    assert.deepEqual(clock.sleeps, [1000], 'f = 1: no delay');
    assert.equal(await store.loginFailuresSince('c', clock.now() - WINDOW), 2);
  } finally {
    await store.close();
  }
});

test('consecutive failures from one client: 0, 0, 0, 1, 2, 4, 8, 16, 30, 30 s; another client is unaffected', async () => {
  const { store, clock, throttle } = await setup([]);
  try {
    for (let i = 0; i < 10; i++) await throttle.attempt('c', async () => false);
    assert.deepEqual(clock.sleeps, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    await throttle.attempt('other', async () => false);
    assert.equal(clock.sleeps.length, 7, 'the other client has f = 0');
  } finally {
    await store.close();
  }
});

test('a success resets: the next failure is not delayed and the count starts again from zero', async () => {
  const { store, clock, throttle } = await setup(recent(8));
  try {
    assert.equal(await throttle.attempt('c', async () => true), true);
    assert.deepEqual(clock.sleeps, [30000], 'the success itself waited the capped delay');
    assert.equal(await store.loginFailuresSince('c', 0), 0);
    for (let i = 0; i < 3; i++) await throttle.attempt('c', async () => false);
    assert.deepEqual(clock.sleeps, [30000], 'f = 0, 1, 2 after the reset');
    await throttle.attempt('c', async () => false);
    assert.deepEqual(clock.sleeps, [30000, 1000], 'f = 3 → 1 s');
  } finally {
    await store.close();
  }
});

test('a success resets only its own client', async () => {
  const { store, clock, throttle } = await setup(recent(3));
  try {
    for (let i = 0; i < 3; i++) await store.recordLoginFailure('d', clock.now());
    await throttle.attempt('d', async () => true);
    assert.deepEqual(clock.sleeps, [1000]);
    await throttle.attempt('c', async () => false);
    assert.deepEqual(clock.sleeps, [1000, 1000], 'c still has its three failures');
  } finally {
    await store.close();
  }
});
