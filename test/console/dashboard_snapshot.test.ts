// The dashboard's numbers are one snapshot (docs/contract.md section 22): read together, kept
// together a few seconds per scope, and shown with the time they were taken, so that a cached count
// is never shown beside a fresh one and the numbers of one page agree with each other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, harness, type Harness } from '../support/harness.ts';
import { enrollPending } from '../support/pending_device.ts';
import { ACCOUNTS } from '../support/scenario.ts';

/** A fleet table's number for the row `name`. */
function shown(body: string, name: string): number | undefined {
  const n = new RegExp(`<th scope="row">${name}</th>\\s*<td><a href="[^"]*">([0-9]+)</a></td>`).exec(body)?.[1];
  return n === undefined ? undefined : Number(n);
}

function takenAt(body: string): string | undefined {
  return /Counted together at <time datetime="([^"]+)">/.exec(body)?.[1];
}

async function dashboard(h: Harness, who: keyof typeof ACCOUNTS = 'admin'): Promise<string> {
  const { cookie } = h.signIn(ACCOUNTS[who]);
  const res = await h.request('/', { headers: { cookie } });
  assert.equal(res.status, 200);
  return res.text();
}

test('the numbers of one page are one snapshot: kept together a few seconds, then taken again together', async () => {
  const h = await harness();
  try {
    await enrollDevice(h, ACCOUNTS.user.subject, 'laptop');
    const first = await dashboard(h);
    assert.equal(shown(first, 'All devices'), 1);
    assert.equal(shown(first, 'Waiting for approval'), 0);
    assert.equal(takenAt(first), new Date(h.clock.now()).toISOString(), 'as of when, as a <time>');

    // A device enrolls and waits: within the snapshot's few seconds, no number moves without the others.
    await enrollPending(h, ACCOUNTS.user.subject, 'waiting');
    h.clock.advance(4_000);
    const kept = await dashboard(h);
    assert.equal(shown(kept, 'Waiting for approval'), 0, 'the pending count is the snapshot’s, not a fresh one');
    assert.equal(shown(kept, 'All devices'), 1);
    assert.equal(takenAt(kept), takenAt(first));

    h.clock.advance(1_000);
    const fresh = await dashboard(h);
    assert.equal(shown(fresh, 'Waiting for approval'), 1);
    assert.equal(shown(fresh, 'All devices'), 2);
    assert.equal(takenAt(fresh), new Date(h.clock.now()).toISOString());
  } finally {
    await h.close();
  }
});

test('a snapshot is kept per scope: another account’s dashboard is its own, counted apart', async () => {
  const h = await harness();
  try {
    await enrollDevice(h, ACCOUNTS.user.subject, 'laptop');
    await enrollDevice(h, ACCOUNTS.other.subject, 'phone');
    assert.equal(shown(await dashboard(h, 'admin'), 'All devices'), 2);
    assert.equal(shown(await dashboard(h, 'user'), 'All devices'), 1);
    assert.equal(shown(await dashboard(h, 'other'), 'All devices'), 1);
  } finally {
    await h.close();
  }
});

test('a snapshot with a read that failed is not kept: the next view counts again', async () => {
  const real = openSqliteStore(':memory:');
  let failing = true;
  const store = new Proxy(real, {
    get(target, prop) {
      if (prop === 'fleetCounts' && failing) return () => Promise.reject(new Error('store down'));
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Store;
  const h = await harness({ store });
  try {
    const down = await dashboard(h);
    assert.match(down, /<th scope="row">Online<\/th>\s*<td>unavailable<\/td>/);
    failing = false;
    const back = await dashboard(h);
    assert.equal(shown(back, 'Online'), 0, 'counted again at once, not a few seconds later');
  } finally {
    await h.close();
  }
});
