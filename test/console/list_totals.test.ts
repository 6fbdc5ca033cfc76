// Every list says how many it holds (docs/contract.md section 22): "Records 1–50 of 12,345", counted
// through the list's own statement up to 10,000 ("more than 10,000"), kept a few seconds, and said
// to be a few seconds old; a later page says its rows' positions ("Records 51–100").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COUNT_UP_TO, countCache } from '../../src/actions/count_cache.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { enrollDevice, harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

async function page(h: Harness, path: string): Promise<string> {
  const { cookie } = h.signIn(ACCOUNTS.admin);
  const res = await h.request(path, { headers: { cookie } });
  assert.equal(res.status, 200, path);
  return res.text();
}

/**
 * The store, with the count `method` answering "more than COUNT_UP_TO" (COUNT_UP_TO + 1, as a store
 * answers a count that stopped), and the count each call asked for (its last argument) in `asked`.
 */
function countedStore(
  method: 'countAudit' | 'countAccounts' | 'countOutstandingEnrollTokens' | 'countCollectionsVisibleTo' | 'countGroups',
) {
  const real = openSqliteStore(':memory:');
  const asked: number[] = [];
  const store = new Proxy(real, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop !== method || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        asked.push(args.at(-1) as number);
        return Promise.resolve(COUNT_UP_TO + 1);
      };
    },
  }) as Store;
  return { store, asked };
}

test('the audit trail: counted up to 10,000 through its own statement, kept five seconds per filter, and says so', async () => {
  const { store, asked } = countedStore('countAudit');
  const h = await harness({ store });
  try {
    for (let i = 0; i < 60; i++)
      await h.store.appendAudit({
        at: h.clock.now() + i,
        event: 'run.deleted',
        account: 'local:admin',
        client: null,
        device: 'd1',
        run: `r${i}`,
        detail: '',
      });
    const first = await page(h, '/audit');
    assert.match(first, /Records 1–50 of more than 10,000\./);
    assert.deepEqual(asked, [COUNT_UP_TO], 'one count, never more than 10,000 rows');
    await page(h, '/audit');
    h.clock.advance(4_000);
    await page(h, '/audit');
    assert.equal(asked.length, 1, 'kept a few seconds');
    await page(h, '/audit?event=run.deleted');
    assert.equal(asked.length, 2, 'another filter is counted apart');
    h.clock.advance(1_000);
    await page(h, '/audit');
    assert.equal(asked.length, 3, 'counted again after five seconds');
  } finally {
    await h.close();
  }
});

test('a count a few seconds old says so: "of about N (counted 3 s ago)"', async () => {
  const h = await harness();
  try {
    for (let i = 0; i < 60; i++)
      await h.store.appendAudit({
        at: h.clock.now() + i,
        event: 'run.deleted',
        account: 'local:admin',
        client: null,
        device: 'd1',
        run: `r${i}`,
        detail: '',
      });
    assert.match(await page(h, '/audit'), /Records 1–50 of 60\./);
    h.clock.advance(3_000);
    const later = await page(h, '/audit');
    assert.match(later, /Records 1–50 of about 60\. <small>\(counted 3\u00a0s ago\)<\/small>/);
    const older = /href="(\/audit\?from=51&amp;before=[0-9.]+)">Older records/.exec(later)?.[1];
    assert.ok(older, 'the older link says where its page starts');
    assert.match(await page(h, older.replaceAll('&amp;', '&')), /Records 51–60 of about 60\./);
  } finally {
    await h.close();
  }
});

test('accounts and outstanding enrollment tokens: counted up to 10,000, more reads "more than 10,000"', async () => {
  for (const [method, path, said] of [
    ['countAccounts', '/accounts', /Accounts 1–50 of more than 10,000 that signed in/],
    ['countOutstandingEnrollTokens', '/enroll-tokens', /Outstanding tokens 1–50 of more than 10,000, newest first/],
  ] as const) {
    const { store, asked } = countedStore(method);
    const h = await harness({ store });
    try {
      const now = h.clock.now();
      for (let i = 0; i < 51; i++)
        if (path === '/accounts')
          await h.store.recordSignIn({ subject: `oidc:u${i}`, display: `U ${i}`, lastSignInAt: now + i, admin: false });
        else
          await h.store.createEnrollToken({
            hash: `h${i}`,
            owner: 'oidc:u',
            createdBy: 'local:admin',
            createdAt: now + i,
            expiresAt: now + 3_600_000,
          });
      assert.match(await page(h, path), said);
      assert.deepEqual(asked, [COUNT_UP_TO], `${path}: one count, of up to 10,000`);
    } finally {
      await h.close();
    }
  }
});

test('groups: counted by the store past the first page; the whole list when it fits a page; later pages say where they are', async () => {
  const h = await harness();
  try {
    const groups = async (n: number) => {
      for (let i = 0; i < n; i++) await h.store.setAccountGroups(`oidc:u${i}`, [`g${String(i).padStart(2, '0')}`]);
    };
    await groups(3);
    assert.match(await page(h, '/groups'), /Groups 1–3 of 3\s+known from accounts/, 'the whole list, from its rows');
    await groups(51);
    const first = await page(h, '/groups');
    assert.match(first, /Groups 1–50 of 51\s+known from accounts/);
    const more = /href="(\/groups\?from=51&amp;before=[^"]+)">More groups/.exec(first)?.[1];
    assert.ok(more);
    assert.match(await page(h, more.replaceAll('&amp;', '&')), /Group 51 of 51\s+known from accounts/);
  } finally {
    await h.close();
  }
});

test('collections and groups: counted up to 10,000, per scope and state, more reads "more than 10,000"', async () => {
  for (const [method, path, said] of [
    ['countCollectionsVisibleTo', '/collections', /Collections 1–50 of more than 10,000/],
    ['countCollectionsVisibleTo', '/collections?state=open', /Collections 1–50 of more than 10,000/],
    ['countGroups', '/groups', /Groups 1–50 of more than 10,000/],
  ] as const) {
    const { store, asked } = countedStore(method);
    const h = await harness({ store });
    try {
      if (method === 'countGroups')
        for (let i = 0; i < 51; i++) await h.store.setAccountGroups(`oidc:u${i}`, [`g${String(i).padStart(2, '0')}`]);
      else {
        // A device holds a few open requests at most: each collection asks a device of its own.
        for (let i = 0; i < 51; i++) {
          const d = await enrollDevice(h, 'oidc:ann');
          await h.store.createCollection(
            { subject: 'local:admin', admin: true },
            {
              id: `c${i}`,
              createdBy: 'local:admin',
              createdAt: h.clock.now() + i,
              privacy: 'full',
              reason: 'check',
              expiresAt: h.clock.now() + 3_600_000,
            },
            { devices: [d.device] },
          );
        }
      }
      assert.match(await page(h, path), said);
      assert.deepEqual(asked, [COUNT_UP_TO], `${path}: one count, of up to 10,000`);
    } finally {
      await h.close();
    }
  }
});

test('the count cache: one count per key while fresh; a failed count or one refused by `keep` is not kept', async () => {
  const clock = fakeClock();
  const kept = countCache(clock);
  let counted = 0;
  const count = () => Promise.resolve(++counted);
  assert.equal(await kept('a', count), 1);
  assert.equal(await kept('a', count), 1);
  assert.equal(await kept('b', count), 2, 'another key is counted apart');
  clock.advance(5_000);
  assert.equal(await kept('a', count), 3, 'counted again after five seconds');
  await assert.rejects(kept('c', () => Promise.reject(new Error('down'))));
  assert.equal(await kept('c', count), 4, 'a failure is not kept');
  assert.equal(await kept('d', count, () => false), 5);
  assert.equal(await kept('d', count), 6, 'a value `keep` refuses is not kept');
});
