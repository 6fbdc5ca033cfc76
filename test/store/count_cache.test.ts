import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withCountCache } from '../../src/store/count_cache.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { fakeClock } from '../support/fake_clock.ts';

test('counts are reused for 5 seconds per viewer, then counted again; other methods pass through', async () => {
  const inner = openSqliteStore(':memory:');
  const clock = fakeClock();
  let calls = 0;
  const counting = new Proxy(inner, {
    get(t, p) {
      if (p === 'countsVisibleTo') return (v: never) => (calls++, t.countsVisibleTo(v));
      const value: unknown = Reflect.get(t, p, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
  const store = withCountCache(counting, clock);
  const admin = { subject: 'local:admin', admin: true };
  await store.countsVisibleTo(admin);
  await store.countsVisibleTo(admin);
  assert.equal(calls, 1);
  await store.countsVisibleTo({ subject: 'oidc:x', admin: false });
  assert.equal(calls, 2, 'another viewer counts separately');
  clock.advance(5_000);
  await store.countsVisibleTo(admin);
  assert.equal(calls, 3);
  await store.setSetting('a', 'b');
  assert.equal(await store.getSetting('a'), 'b');
  await store.close();
});

test("the dashboard's client versions are reused for 5 seconds, then counted again", async () => {
  const inner = openSqliteStore(':memory:');
  const clock = fakeClock();
  let calls = 0;
  const counting = new Proxy(inner, {
    get(t, p) {
      if (p === 'factValueCounts') return (k: string, n: number) => (calls++, t.factValueCounts(k, n));
      const value: unknown = Reflect.get(t, p, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
  const store = withCountCache(counting, clock);
  assert.deepEqual(await store.factValueCounts('client_version', 10), []);
  await store.factValueCounts('client_version', 10);
  assert.equal(calls, 1);
  clock.advance(5_000);
  await store.factValueCounts('client_version', 10);
  assert.equal(calls, 2);
  await store.close();
});
