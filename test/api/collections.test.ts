// Collection requests in the JSON API (docs/contract.md sections 11 and 15) as a table of scenarios,
// each on a fresh world and run on both stores, as test/api/scenarios.test.ts does for the rest of
// the API: one row is one request by one token, what must come back (status, problem field, body,
// the exact events), and what must have changed. Every response is checked against the served
// OpenAPI document, and the table covers every collections operation of it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newCollectionId } from '../../src/domain/collections.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';
import { type ApiRow, apiTable, apiToken, checkResponse } from '../support/api_table.ts';

type Token = 'admin' | 'user' | 'other' | 'read';
type Ids = { mine: string; mine2: string; theirs: string; gone: string; open: string; admins: string };

interface World {
  h: Harness;
  tokens: Record<Token, string>;
  /**
   * The user's devices (mine: site=berlin, line=3; mine2: site=paris; gone: revoked), the other
   * account's (theirs: site=berlin); the user's open collection to mine, the admin's to theirs.
   */
  ids: Ids;
}

type Row = ApiRow<World>;

type Json = Record<string, unknown>;
type Counts = Record<string, number>;
const counts = (body: unknown) => (body as { counts: Counts }).counts;
const items = (body: unknown) => (body as { items: Json[] }).items;
const used = 'access_token.used' as const;

/** The targets of a collection as [device, state, reason], in the store. */
async function targets(w: World, id: string) {
  return (await w.h.store.collectionTargets({ subject: 'local:admin', admin: true }, id, { limit: 50 })).items
    .map((t) => [t.device, t.state, t.reason])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

const ask = { privacy: 'redacted', reason: 'weekly inventory' };

const rows: Row[] = [
  // Creating: named devices, or the device list's filter, within the account's scope.
  {
    name: 'ask named devices: 201 with the collection and its counts',
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: (ids) => ({ ...ask, devices: [ids.mine, ids.mine2], expires_in: 3600 }),
    status: 201,
    events: [used, 'collection.created'],
    check: async (w, body, res) => {
      const c = body as Json;
      assert.equal(res.headers.get('location'), `/api/v1/collections/${String(c.id)}`);
      assert.deepEqual(
        [c.created_by, c.privacy, c.reason, c.open, c.closed_at, c.cancelled_at],
        [ACCOUNTS.user.subject, 'redacted', 'weekly inventory', true, null, null],
      );
      assert.equal(Date.parse(String(c.expires_at)) - Date.parse(String(c.created_at)), 3_600_000);
      assert.deepEqual(counts(body), {
        pending: 2,
        delivered: 0,
        fulfilled: 0,
        declined: 0,
        expired: 0,
        cancelled: 0,
        skipped: 0,
      });
      assert.deepEqual(
        await targets(w, String(c.id)),
        [
          [w.ids.mine, 'pending', null],
          [w.ids.mine2, 'pending', null],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      );
    },
  },
  {
    name: 'expires_in defaults to a day',
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: (ids) => ({ ...ask, devices: [ids.mine] }),
    status: 201,
    check: (_w, body) => {
      const c = body as Json;
      assert.equal(Date.parse(String(c.expires_at)) - Date.parse(String(c.created_at)), 86_400_000);
    },
  },
  {
    name: "a user naming another account's device reaches only its own, and does not count the other",
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: (ids) => ({ ...ask, devices: [ids.mine, ids.theirs] }),
    status: 201,
    check: async (w, body) => {
      assert.equal(counts(body).pending, 1);
      assert.deepEqual(await targets(w, String((body as Json).id)), [[w.ids.mine, 'pending', null]]);
    },
  },
  {
    name: 'a revoked device is a skipped target, and a collection with nothing open is closed at once',
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: (ids) => ({ ...ask, devices: [ids.gone] }),
    status: 201,
    events: [used, 'collection.created', 'collection.closed'],
    check: async (w, body) => {
      const c = body as Json;
      assert.equal(c.open, false);
      assert.equal(typeof c.closed_at, 'string');
      assert.equal(counts(body).skipped, 1);
      assert.deepEqual(await targets(w, String(c.id)), [[w.ids.gone, 'skipped', 'revoked']]);
    },
  },
  {
    name: "an admin's filter by label reaches every account's devices",
    as: 'admin',
    method: 'POST',
    path: '/api/v1/collections',
    json: { ...ask, filter: { label: ['site=berlin'] } },
    status: 201,
    events: [used, 'collection.created'],
    check: async (w, body) =>
      assert.deepEqual(
        (await targets(w, String((body as Json).id))).map((t) => t[0]).sort(),
        [w.ids.mine, w.ids.theirs].sort(),
      ),
  },
  {
    name: "an admin's filter by fact reaches the devices that reported it, every fact holding (docs/contract.md section 16)",
    as: 'admin',
    method: 'POST',
    path: '/api/v1/collections',
    json: { ...ask, filter: { fact: ['os=linux'], label: ['site=berlin'] } },
    status: 201,
    events: [used, 'collection.created'],
    check: async (w, body) =>
      assert.deepEqual(
        (await targets(w, String((body as Json).id))).map((t) => t[0]).sort(),
        [w.ids.mine, w.ids.theirs].sort(),
      ),
  },
  {
    name: "a user's filter reaches only its own devices",
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: { ...ask, filter: { label: ['site=berlin'], status: 'active', q: 'min' } },
    status: 201,
    check: async (w, body) =>
      assert.deepEqual(await targets(w, String((body as Json).id)), [[w.ids.mine, 'pending', null]]),
  },
  {
    name: 'an empty filter reaches every device the account may see, skipping the revoked one',
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: { ...ask, filter: {} },
    status: 201,
    check: (_w, body) => assert.deepEqual([counts(body).pending, counts(body).skipped], [2, 1]),
  },
  {
    name: "a user's filter on another owner reaches nothing: created, and closed at once",
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: { ...ask, filter: { owner: ACCOUNTS.other.subject } },
    status: 201,
    events: [used, 'collection.created', 'collection.closed'],
    check: (_w, body) => {
      assert.equal((body as Json).open, false);
      assert.equal(
        Object.values(counts(body)).reduce((a, b) => a + b),
        0,
      );
    },
  },
  {
    name: 'a read token may not ask',
    as: 'read',
    method: 'POST',
    path: '/api/v1/collections',
    json: (ids) => ({ ...ask, devices: [ids.mine] }),
    status: 403,
    events: ['access.read_only_refused'],
    check: async (w) =>
      assert.equal((await w.h.store.collectionsVisibleTo(ACCOUNTS.admin, { limit: 50 })).items.length, 2),
  },
  // Refusals: each names its field, and nothing is created.
  ...(
    [
      ['an unknown field', { ...ask, devices: ['d_x'], colour: 'red' }, 'colour'],
      ['a bad fact filter', { ...ask, filter: { fact: ['OS=linux'] } }, 'filter.fact'],
      ['a fact filter that is not a list', { ...ask, filter: { fact: 'os=linux' } }, 'filter.fact'],
      [
        'a filter the device list has but a collection does not take',
        { ...ask, filter: { sort: 'name' } },
        'filter.sort',
      ],
      ['both devices and a filter', { ...ask, devices: ['d_x'], filter: {} }, 'filter'],
      ['neither devices nor a filter', ask, 'devices'],
      [
        '1001 devices',
        { ...ask, devices: Array.from({ length: 1001 }, (_, i) => `d_${String(i).padStart(16, '0')}`) },
        'devices',
      ],
      ['no device', { ...ask, devices: [] }, 'devices'],
      ['a device id of a bad shape', { ...ask, devices: ['not a device'] }, 'devices'],
      ['devices that are not strings', { ...ask, devices: [1, 2] }, 'devices'],
      ['devices that are not a list', { ...ask, devices: 'd_x' }, 'devices'],
      ['an unknown privacy level', { ...ask, privacy: 'secret', devices: ['d_x'] }, 'privacy'],
      ['no privacy level', { reason: 'why', devices: ['d_x'] }, 'privacy'],
      ['an empty reason', { ...ask, reason: '', devices: ['d_x'] }, 'reason'],
      ['a reason of 201 characters', { ...ask, reason: 'x'.repeat(201), devices: ['d_x'] }, 'reason'],
      ['an expiry under a minute', { ...ask, expires_in: 59, devices: ['d_x'] }, 'expires_in'],
      ['an expiry over a week', { ...ask, expires_in: 604_801, devices: ['d_x'] }, 'expires_in'],
      ['an expiry as text', { ...ask, expires_in: '3600', devices: ['d_x'] }, 'expires_in'],
      ['a filter that is not an object', { ...ask, filter: ['site=berlin'] }, 'filter'],
      ['a bad status filter', { ...ask, filter: { status: 'asleep' } }, 'filter.status'],
      ['a blank search, which would widen the ask', { ...ask, filter: { q: '' } }, 'filter.q'],
      ['a blank owner', { ...ask, filter: { owner: '' } }, 'filter.owner'],
      ['a label filter given as a string', { ...ask, filter: { label: 'site=berlin' } }, 'filter.label'],
      ['a bad label filter', { ...ask, filter: { label: ['Site'] } }, 'filter.label'],
      ['six label filters', { ...ask, filter: { label: ['a', 'b', 'c', 'd', 'e', 'f'] } }, 'filter.label'],
    ] as const
  ).map(([what, json, field]): Row => ({
    name: `refused: ${what}`,
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json,
    status: 400,
    field,
    events: [used],
    check: async (w) =>
      assert.equal((await w.h.store.collectionsVisibleTo(ACCOUNTS.admin, { limit: 50 })).items.length, 2),
  })),
  {
    name: 'refused: a body that is not JSON',
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    body: 'privacy=full',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
  },
  {
    name: 'refused: a body over 64 KiB',
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections',
    json: { ...ask, devices: Array.from({ length: 1000 }, (_, i) => `d_${String(i).padStart(64, '0')}`) },
    status: 413,
  },
  // Reading: an admin sees every collection, an account its own; another's is not found.
  {
    name: 'a user lists its own collections',
    as: 'user',
    path: '/api/v1/collections',
    status: 200,
    check: (w, body) =>
      assert.deepEqual(
        items(body).map((c) => c.id),
        [w.ids.open],
      ),
  },
  {
    name: 'an admin lists every collection, newest first',
    as: 'admin',
    path: '/api/v1/collections',
    status: 200,
    check: (w, body) =>
      assert.deepEqual(
        items(body).map((c) => c.id),
        [w.ids.admins, w.ids.open],
      ),
  },
  {
    name: 'closed collections only',
    as: 'admin',
    path: '/api/v1/collections?state=closed',
    status: 200,
    check: (w, body) =>
      assert.deepEqual(
        items(body).map((c) => c.id),
        [w.ids.admins],
      ),
  },
  {
    name: 'open collections only',
    as: 'admin',
    path: '/api/v1/collections?state=open',
    status: 200,
    check: (w, body) =>
      assert.deepEqual(
        items(body).map((c) => c.id),
        [w.ids.open],
      ),
  },
  { name: 'a bad state', as: 'user', path: '/api/v1/collections?state=asleep', status: 400, field: 'state' },
  { name: 'an unknown parameter', as: 'user', path: '/api/v1/collections?colour=red', status: 400, field: 'colour' },
  { name: 'a bad cursor', as: 'user', path: '/api/v1/collections?before=x', status: 400, field: 'before' },
  {
    name: 'one collection with its counts',
    as: 'user',
    path: '/api/v1/collections/{open}',
    status: 200,
    check: (w, body) => {
      assert.equal((body as Json).id, w.ids.open);
      assert.equal(counts(body).pending, 1);
    },
  },
  { name: "another account's collection is not found", as: 'user', path: '/api/v1/collections/{admins}', status: 404 },
  { name: 'an admin sees any collection', as: 'admin', path: '/api/v1/collections/{open}', status: 200 },
  { name: 'an id of a bad shape', as: 'user', path: '/api/v1/collections/nope', status: 404 },
  {
    name: 'an unknown collection',
    as: 'admin',
    path: `/api/v1/collections/c_${'A'.repeat(16)}`,
    status: 404,
  },
  {
    name: "a collection's targets",
    as: 'user',
    path: '/api/v1/collections/{open}/targets',
    status: 200,
    check: (w, body) => {
      const [t] = items(body);
      assert.equal(items(body).length, 1);
      assert.deepEqual(
        [t?.device, t?.device_name, t?.state, t?.run, t?.reason],
        [w.ids.mine, 'mine', 'pending', null, null],
      );
      assert.match(String(t?.request), /^r_[1-9][0-9]*$/);
    },
  },
  {
    name: 'targets in one state',
    as: 'admin',
    path: '/api/v1/collections/{admins}/targets?state=skipped',
    status: 200,
    check: (w, body) =>
      assert.deepEqual(
        items(body).map((t) => [t.device, t.reason]),
        [[w.ids.gone, 'revoked']],
      ),
  },
  {
    name: 'targets in a state none is in',
    as: 'admin',
    path: '/api/v1/collections/{admins}/targets?state=fulfilled',
    status: 200,
    check: (_w, body) => assert.deepEqual(items(body), []),
  },
  {
    name: 'a bad target state',
    as: 'user',
    path: '/api/v1/collections/{open}/targets?state=open',
    status: 400,
    field: 'state',
  },
  {
    name: "another account's targets are not found",
    as: 'other',
    path: '/api/v1/collections/{open}/targets',
    status: 404,
  },
  // Cancelling: its creator or an admin; the collection as it is afterwards.
  {
    name: 'its creator cancels a collection: its open targets are cancelled, and it closes',
    as: 'user',
    method: 'POST',
    path: '/api/v1/collections/{open}/cancel',
    status: 200,
    events: [used, 'collection.cancelled', 'collection.closed'],
    check: async (w, body) => {
      const c = body as Json;
      assert.deepEqual([c.open, counts(body).cancelled, counts(body).pending], [false, 1, 0]);
      assert.equal(typeof c.cancelled_at, 'string');
      assert.deepEqual(await targets(w, w.ids.open), [[w.ids.mine, 'cancelled', null]]);
      await w.h.flushAudit();
      const audited = await w.h.store.auditPage({ event: 'collection.cancelled' }, { limit: 5 });
      assert.deepEqual(
        audited.items.map((r) => r.account),
        [ACCOUNTS.user.subject],
      );
    },
  },
  {
    name: "an admin cancels another account's collection",
    as: 'admin',
    method: 'POST',
    path: '/api/v1/collections/{open}/cancel',
    status: 200,
    check: (_w, body) => assert.equal((body as Json).open, false),
  },
  {
    name: "a user may not cancel another account's collection",
    as: 'other',
    method: 'POST',
    path: '/api/v1/collections/{open}/cancel',
    status: 404,
    events: [used],
    check: async (w) => assert.deepEqual(await targets(w, w.ids.open), [[w.ids.mine, 'pending', null]]),
  },
  {
    name: 'a read token may not cancel',
    as: 'read',
    method: 'POST',
    path: '/api/v1/collections/{open}/cancel',
    status: 403,
    events: ['access.read_only_refused'],
    check: async (w) => assert.deepEqual(await targets(w, w.ids.open), [[w.ids.mine, 'pending', null]]),
  },
  {
    name: 'cancel an unknown collection',
    as: 'admin',
    method: 'POST',
    path: `/api/v1/collections/c_${'A'.repeat(16)}/cancel`,
    status: 404,
  },
];

async function world(store?: Store): Promise<World> {
  const h = await harness({ store });
  const now = h.clock.now();
  const tokens = {} as Record<Token, string>;
  const make = async (name: Token, who: keyof typeof ACCOUNTS, scope: 'read' | 'write' = 'write') => {
    tokens[name] = await apiToken(h, who, scope);
  };
  await make('admin', 'admin');
  await make('user', 'user');
  await make('other', 'other');
  await make('read', 'user', 'read');
  const mine = await enrollDevice(h, ACCOUNTS.user.subject, 'mine');
  const mine2 = await enrollDevice(h, ACCOUNTS.user.subject, 'mine too');
  const theirs = await enrollDevice(h, ACCOUNTS.other.subject, 'theirs');
  const gone = await enrollDevice(h, ACCOUNTS.user.subject, 'gone');
  await h.store.revokeDevice(ACCOUNTS.admin, gone.device, now);
  await h.store.changeLabels(ACCOUNTS.admin, mine.device, { replace: { site: 'berlin', line: '3' } });
  await h.store.changeLabels(ACCOUNTS.admin, mine2.device, { replace: { site: 'paris' } });
  await h.store.changeLabels(ACCOUNTS.admin, theirs.device, { replace: { site: 'berlin' } });
  await h.store.reportFacts(mine.device, { os: 'linux' }, h.clock.now());
  await h.store.reportFacts(mine2.device, { os: 'linux' }, h.clock.now());
  await h.store.reportFacts(theirs.device, { os: 'linux' }, h.clock.now());
  // The user's collection, open; then the admin's, which reached only a revoked device: closed.
  const asked = (by: string, at: number) => ({
    id: newCollectionId(),
    createdBy: by,
    createdAt: at,
    privacy: 'full' as const,
    reason: 'seeded',
    expiresAt: at + 86_400_000,
  });
  const open = await h.store.createCollection(ACCOUNTS.user, asked(ACCOUNTS.user.subject, now), {
    devices: [mine.device],
  });
  h.clock.advance(10);
  const admins = await h.store.createCollection(ACCOUNTS.admin, asked(ACCOUNTS.admin.subject, now + 10), {
    devices: [gone.device],
  });
  h.clock.advance(10);
  const ids = {
    mine: mine.device,
    mine2: mine2.device,
    theirs: theirs.device,
    gone: gone.device,
    open: open.id,
    admins: admins.id,
  };
  return { h, tokens, ids };
}

await apiTable(rows, world, {
  title: 'the table covers every collections operation of the document',
  owns: (path) => path.startsWith('/api/v1/collections'),
});

test('sqlite: the list of collections is paged by its cursor, newest first, every one once', async () => {
  const w = await world();
  try {
    for (let i = 0; i < 60; i++) {
      const at = w.h.clock.now();
      await w.h.store.createCollection(
        ACCOUNTS.user,
        {
          id: newCollectionId(),
          createdBy: ACCOUNTS.user.subject,
          createdAt: at,
          privacy: 'full',
          reason: `ask ${i}`,
          expiresAt: at + 86_400_000,
        },
        { devices: [w.ids.mine2] },
      );
    }
    const seen: string[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const query = next === undefined ? '' : `?before=${next}`;
      const res = await w.h.request(`/api/v1/collections${query}`, {
        headers: { authorization: `Bearer ${w.tokens.user}` },
      });
      assert.equal(res.status, 200);
      const page = (await res.json()) as { items: Json[]; next?: string };
      checkResponse('GET', '/api/v1/collections', 200, 'application/json', page);
      seen.push(...page.items.map((c) => String(c.reason)));
      next = page.next;
      pages++;
    } while (next !== undefined);
    assert.equal(pages, 2);
    assert.deepEqual(seen, [...Array.from({ length: 60 }, (_, i) => `ask ${59 - i}`), 'seeded']);
  } finally {
    await w.h.close();
  }
});
