import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { semaphore, SlotsBusy, storeThrottle, throttleDelayMs } from '../../src/throttle/throttle.ts';
import { fakeClock } from '../support/fake_clock.ts';

test('the delay schedule of docs/contract.md section 5: none below 3 failures, then 2^(f-3) s up to 30 s', () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map(throttleDelayMs),
    [0, 0, 0, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
  );
});

test('failures in the last 15 minutes count per client; a success resets them', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const throttle = storeThrottle(store, clock);
  for (let i = 0; i < 5; i++) await throttle.attempt('a', async () => false);
  assert.deepEqual(clock.sleeps, [1000, 2000]);
  await throttle.attempt('b', async () => false);
  assert.deepEqual(clock.sleeps, [1000, 2000], 'another client is not delayed');
  await throttle.attempt('a', async () => true);
  assert.deepEqual(clock.sleeps, [1000, 2000, 4000], 'the delay is slept before the successful answer too');
  await throttle.attempt('a', async () => false);
  assert.equal(clock.sleeps.length, 3, 'success reset the count');
  clock.advance(16 * 60 * 1000);
  for (let i = 0; i < 3; i++) await throttle.attempt('b', async () => false);
  assert.equal(clock.sleeps.length, 3, 'old failures fell out of the window');
  await store.close();
});

test('attempts from one client run one at a time, in arrival order', async () => {
  const store = openSqliteStore(':memory:');
  const throttle = storeThrottle(store, fakeClock());
  const order: string[] = [];
  let running = 0;
  const check = (label: string) => async () => {
    running++;
    assert.equal(running, 1);
    order.push(label);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    return false;
  };
  await Promise.all(['1', '2', '3', '4'].map((l) => throttle.attempt('c', check(l))));
  assert.deepEqual(order, ['1', '2', '3', '4']);
  await store.close();
});

test('too many waiting attempts from one client are refused, not queued', async () => {
  const store = openSqliteStore(':memory:');
  const throttle = storeThrottle(store, fakeClock());
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const pending = Array.from({ length: 32 }, () => throttle.attempt('d', async () => (await gate, false)));
  assert.equal(await throttle.attempt('d', async () => true), 'busy');
  release();
  await Promise.all(pending);
  await store.close();
});

test('a refused 33rd attempt is answered only after the delay an attempt would sleep', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const throttle = storeThrottle(store, clock);
  for (let i = 0; i < 4; i++) await store.recordLoginFailure('e', clock.now());
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  // The first attempt sleeps its 2 s, then holds the turn in its check; 31 more wait behind it.
  const pending = Array.from({ length: 32 }, () => throttle.attempt('e', async () => (await gate, false)));
  await new Promise((r) => setImmediate(r));
  const before = clock.sleeps.length;
  assert.equal(await throttle.attempt('e', async () => true), 'busy');
  assert.deepEqual(clock.sleeps.slice(before), [2000], 'the refusal slept the current delay (f = 4 → 2 s)');
  release();
  await Promise.all(pending);
  await store.close();
});

test('the semaphore refuses a task when its waiting list is full, and runs the others', async () => {
  const limited = semaphore(1, 2);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const running = limited(() => gate);
  const waiting = [limited(async () => 'a'), limited(async () => 'b')];
  await assert.rejects(
    limited(async () => 'c'),
    (err: unknown) => err instanceof SlotsBusy,
  );
  release();
  await running;
  assert.deepEqual(await Promise.all(waiting), ['a', 'b']);
  assert.equal(await limited(async () => 'd'), 'd', 'a slot and the list are free again');
});

test('the semaphore never runs more than its limit', async () => {
  const limited = semaphore(2);
  let active = 0;
  let peak = 0;
  await Promise.all(
    Array.from({ length: 10 }, () =>
      limited(async () => {
        peak = Math.max(peak, ++active);
        await new Promise((r) => setTimeout(r, 2));
        active--;
      }),
    ),
  );
  assert.equal(peak, 2);
});

test('two instances on one store take turns: attempts from one client never overlap across them', async () => {
  const store = openSqliteStore(':memory:');
  // Real time, so an instance waiting for the turn lets the other's attempt finish.
  const clock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
  const [a, b] = [storeThrottle(store, clock), storeThrottle(store, clock)];
  let running = 0;
  let most = 0;
  const check = async () => {
    most = Math.max(most, ++running);
    await new Promise((r) => setTimeout(r, 20));
    running--;
    return true;
  };
  const results = await Promise.all([a, b, a, b].map((t) => t.attempt('e', check)));
  assert.deepEqual(results, [true, true, true, true]);
  assert.equal(most, 1, 'never two attempts of one client at once');
  assert.equal(await store.takeLoginTurn('e', 'next', Date.now(), Date.now() + 1), true, 'the last turn was released');
  await store.close();
});

test('refusals that sleep the delay are bounded too: beyond 32 of them, a refusal is answered at once', async () => {
  const store = openSqliteStore(':memory:');
  let now = Date.UTC(2026, 10, 22, 12);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let sleeping = 0;
  const clock = {
    now: () => now,
    async sleep(ms: number) {
      sleeping++;
      await gate;
      now += ms;
    },
  };
  const throttle = storeThrottle(store, clock);
  for (let i = 0; i < 4; i++) await store.recordLoginFailure('f', now);
  const attempt = () => throttle.attempt('f', async () => false);
  const queued = Array.from({ length: 32 }, attempt);
  const refusals = Array.from({ length: 32 }, attempt);
  await new Promise((r) => setImmediate(r));
  assert.equal(sleeping, 33, 'the first queued attempt and 32 refusals sleep the delay');
  assert.equal(await attempt(), 'busy', 'the 65th is answered without waiting');
  assert.equal(sleeping, 33);
  release();
  assert.deepEqual(new Set(await Promise.all(refusals)), new Set(['busy']));
  await Promise.all(queued);
  await store.close();
});
