// Issue 34, finding 2: the break-glass throttle counted per exact client address, so an attacker
// holding the password could guess second-factor codes from many addresses at once. The account's
// failures are now counted across addresses (docs/decisions.md), and IPv6 clients by their /64.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { accountIntervalMs, KNOWN_CLIENT_MS, storeThrottle } from '../../src/throttle/throttle.ts';
import { throttleKey } from '../../src/throttle/throttle_key.ts';
import { fakeClock } from '../support/fake_clock.ts';

test('the account-wide schedule: none below 10 failures, then 1 s doubling up to 30 s', () => {
  assert.deepEqual(
    [0, 9, 10, 11, 12, 14, 15, 40].map(accountIntervalMs),
    [0, 0, 1000, 2000, 4000, 16000, 30000, 30000],
  );
});

test('finding: failures from many addresses slow attempts from every new address', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const throttle = storeThrottle(store, clock);
  // Two failures each from 127.0.0.1 … 127.0.0.5: no address reaches its own delay of 3 failures.
  for (let i = 1; i <= 5; i++) {
    for (let n = 0; n < 2; n++) await throttle.attempt(`127.0.0.${i}`, async () => false);
  }
  assert.deepEqual(clock.sleeps, [], 'ten failures: no address was slowed yet');
  // The eleventh attempt, from an address never seen, waits its turn on the account's schedule.
  const sleepsBefore = clock.sleeps.length;
  await throttle.attempt('127.0.0.6', async () => false);
  await throttle.attempt('127.0.0.7', async () => false);
  assert.deepEqual(
    clock.sleeps.slice(sleepsBefore),
    [1000],
    'the first takes a slot of 1 s (10 failures), so the second starts when it ends',
  );
  await store.close();
});

test('finding: a distributed guesser gets at most one check per interval, and a refusal past 30 s of waiting', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  for (let i = 0; i < 20; i++) await store.recordLoginFailure(`198.51.100.${i}`, clock.now());
  const throttle = storeThrottle(store, clock);
  assert.equal(accountIntervalMs(20), 30_000);
  // Concurrent attempts from fresh addresses: the first checks now, the next waits 30 s, the rest are refused.
  const checked: number[] = [];
  const outcomes = await Promise.all(
    ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'].map((a) =>
      throttle.attempt(a, async () => (checked.push(clock.now()), false)),
    ),
  );
  assert.equal(outcomes.filter((o) => o === 'busy').length >= 2, true, `outcomes: ${outcomes}`);
  assert.equal(checked.length <= 2, true);
  await store.close();
});

test('finding: the administrator at an address they signed in from is not held back by an attack elsewhere', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const throttle = storeThrottle(store, clock);
  assert.equal(await throttle.attempt('192.0.2.10', async () => true), true, 'a sign-in makes the address known');
  clock.advance(60_000);
  for (let i = 0; i < 30; i++) await store.recordLoginFailure(`198.51.100.${i}`, clock.now());
  // Fill the account's schedule as an attacker would.
  await throttle.attempt('203.0.113.1', async () => false);
  await throttle.attempt('203.0.113.2', async () => false);
  const before = clock.sleeps.length;
  assert.equal(await throttle.attempt('192.0.2.10', async () => true), true);
  assert.deepEqual(clock.sleeps.slice(before), [], 'no wait at the known address');
  // Known for 30 days after its last success, then it waits like any other.
  clock.advance(KNOWN_CLIENT_MS + 1);
  for (let i = 0; i < 30; i++) await store.recordLoginFailure(`198.51.100.${i}`, clock.now());
  await throttle.attempt('203.0.113.3', async () => false);
  const later = clock.sleeps.length;
  await throttle.attempt('192.0.2.10', async () => true);
  assert.deepEqual(clock.sleeps.slice(later), [30_000]);
  await store.close();
});

test('finding: an attack that stops holds a new address back by at most one interval', async () => {
  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const throttle = storeThrottle(store, clock);
  for (let i = 0; i < 30; i++) await store.recordLoginFailure(`198.51.100.${i}`, clock.now());
  await throttle.attempt('203.0.113.1', async () => false);
  clock.advance(31_000);
  const before = clock.sleeps.length;
  assert.equal(await throttle.attempt('192.0.2.99', async () => true), true);
  assert.deepEqual(clock.sleeps.slice(before), [], 'the schedule is free again: no wait');
  await store.close();
});

test('finding: IPv6 clients count by their /64', async () => {
  assert.equal(throttleKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(throttleKey('2001:db8:1:2::ffff'), '2001:db8:1:2::/64');
  assert.equal(throttleKey('2001:0DB8:0001:0002:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(throttleKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(throttleKey('::1'), '0:0:0:0::/64');
  assert.equal(throttleKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(throttleKey('::ffff:192.0.2.1'), '0:0:0:0::/64');
  assert.equal(throttleKey('192.0.2.1'), '192.0.2.1');

  const store = openSqliteStore(':memory:');
  const clock = fakeClock();
  const throttle = storeThrottle(store, clock);
  // Three failures from three addresses of one /64 are three failures of one client.
  for (const a of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) {
    await throttle.attempt(a, async () => false);
  }
  await throttle.attempt('2001:db8:1:2::4', async () => false);
  assert.deepEqual(clock.sleeps, [1000]);
  await throttle.attempt('2001:db8:1:3::1', async () => false);
  assert.deepEqual(clock.sleeps, [1000], 'the next /64 is another client');
  await store.close();
});
