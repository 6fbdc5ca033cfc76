// The console's collection requests (docs/contract.md section 15) on both stores: the list, asking
// from a device page (named devices) and from the device list (its filters), the collection's page
// and cancelling it. Each row is one request on a fresh store, with exactly the events it emits;
// a refused ask creates nothing, and another account's collection is a 404 to see or to cancel.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { createCollection, type NewCollectionInput } from '../../src/actions/collections.ts';
import { MAX_NAMED_DEVICES } from '../../src/domain/collections.ts';
import type { Labels } from '../../src/domain/labels.ts';
import type { PrivacyLevel } from '../../src/domain/privacy.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { form, type Harness } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { ACCOUNTS, runScenarios, type Scenario, type Who } from '../support/scenario.ts';

const HOUR = 3_600_000;
const ALL = { subject: 'local:auditor', admin: true };
const USER = ACCOUNTS.user.subject;
const OTHER = ACCOUNTS.other.subject;

/** A device enrolled straight into the store, with the id, labels and ceiling given. */
async function device(
  h: Harness,
  owner: string,
  id: string,
  opts: { labels?: Labels; maxPrivacy?: PrivacyLevel } = {},
) {
  await h.store.createEnrollToken({
    hash: `tok-${id}`,
    owner,
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + HOUR,
    labels: opts.labels ?? {},
    maxPrivacy: opts.maxPrivacy,
  });
  const d = await h.store.enrollDevice({
    tokenHash: `tok-${id}`,
    now: h.clock.now(),
    deviceId: id,
    name: `name-${id}`,
    credentialHash: `cred-${id}`,
  });
  assert.ok(d, `device ${id} enrolled`);
}

/**
 * The user's u1 (site=berlin), u2 (site=berlin, ceiling minimal), u3 (site=paris) and u4
 * (revoked); the other account's o1 (site=berlin).
 */
async function fleet(h: Harness): Promise<Record<string, string>> {
  await device(h, USER, 'u1', { labels: { site: 'berlin' } });
  await device(h, USER, 'u2', { labels: { site: 'berlin' }, maxPrivacy: 'minimal' });
  await device(h, USER, 'u3', { labels: { site: 'paris' } });
  await device(h, USER, 'u4');
  assert.ok(await h.store.revokeDevice(ALL, 'u4', h.clock.now()));
  await device(h, OTHER, 'o1', { labels: { site: 'berlin' } });
  h.clock.advance(1000);
  return {};
}

/** A collection asked through the action, as `who`. */
async function ask(h: Harness, who: Who, input: Partial<NewCollectionInput> = {}): Promise<string> {
  const account = ACCOUNTS[who as Exclude<Who, 'nobody'>];
  const made = await createCollection(
    { store: h.store, logger: memoryLogger(), clock: h.clock },
    { subject: account.subject, admin: account.admin, client: null },
    { privacy: 'redacted', reason: 'firmware <b>2.1</b>', scope: { devices: ['u1', 'u2', 'u4'] }, ...input },
  );
  assert.ok(made.ok, JSON.stringify(made));
  return made.collection.id;
}

/** The fleet, a collection of the user's (`mine`) and one of the other account's (`theirs`). */
async function twoCollections(h: Harness): Promise<Record<string, string>> {
  await fleet(h);
  const mine = await ask(h, 'user');
  h.clock.advance(1000);
  const theirs = await ask(h, 'other', { reason: 'the other one', scope: { devices: ['o1'] } });
  return { mine, theirs };
}

async function collectionsMade(h: Harness) {
  return (await h.store.collectionsVisibleTo(ALL, { limit: 100 })).items;
}

async function nothingCreated(h: Harness) {
  assert.deepEqual(await collectionsMade(h), [], 'no collection was created');
}

/** The only collection there is, its targets as [device, state, reason], sorted. */
async function theOnlyCollection(h: Harness) {
  const [c, more] = await collectionsMade(h);
  assert.ok(c && !more, 'exactly one collection');
  const targets = (await h.store.collectionTargets(ALL, c.id, { limit: 100 })).items;
  return { c, targets: targets.map((t) => [t.device, t.state, t.reason]).sort() };
}

const asking = (who: Who, form: Record<string, string | string[]>) => ({
  method: 'POST',
  path: '/collections',
  as: who,
  setup: fleet,
  form: { csrf: '$csrf', ...form },
});

const byDevice = { privacy: 'redacted', reason: 'firmware 2.1 on line 3', device: 'u1' };
const byFilter = { privacy: 'minimal', reason: 'after the storm', match: 'filter' };

/** A refused ask: 400 with the failure's message, no event, nothing created. */
const refused = (name: string, form: Record<string, string | string[]>, message: string | RegExp): Scenario => ({
  ...asking('user', form),
  name: `refused, nothing created: ${name}`,
  status: 400,
  events: [],
  contains: [message],
  after: nothingCreated,
});

const scenarios: Scenario[] = [
  // GET /collections
  {
    name: 'the list: none yet; the page is linked from the navigation',
    path: '/collections',
    as: 'user',
    status: 200,
    events: [],
    headersMatch: { 'content-security-policy': "default-src 'none'" },
    contains: [
      /No collections that you asked for,\s+newest first\./,
      '<a href="/collections">Collections</a>',
      'Find collections',
    ],
    notContains: ['<script', '<style'],
  },
  {
    name: 'the list: a user sees the collections it asked for, never another account’s',
    path: '/collections',
    as: 'user',
    setup: twoCollections,
    status: 200,
    contains: [
      'Collection 1 of 1 that you asked for',
      'firmware &lt;b&gt;2.1&lt;/b&gt;',
      `<td>${USER}</td>`,
      '<td>redacted</td>',
      '1 pending, 2 skipped',
      '<td>open</td>',
      /in 1 day \(<time/,
    ],
    notContains: ['the other one', '<b>2.1'],
    after: (_h, _r, body, f) => {
      assert.ok(body.includes(`<a href="/collections/${f.mine}"><code>${f.mine}</code></a>`));
      assert.ok(!body.includes(f.theirs ?? '-'));
    },
  },
  {
    name: 'the list: an admin sees every collection, newest first',
    path: '/collections',
    as: 'admin',
    setup: twoCollections,
    status: 200,
    contains: [/Collections 1–2 of 2,\s+newest first\./],
    after: (_h, _r, body, f) => assert.ok(body.indexOf(f.theirs ?? '-') < body.indexOf(f.mine ?? '-')),
  },
  {
    name: 'the list: state=closed shows the closed ones only (a cancelled one among them)',
    path: '/collections?state=closed',
    as: 'admin',
    setup: async (h) => {
      const f = await twoCollections(h);
      const { cookie, csrf } = h.signIn(ACCOUNTS.admin);
      const cancelled = await h.request(`/collections/${f.mine}/cancel`, form({ csrf }, cookie));
      assert.equal(cancelled.status, 303);
      return f;
    },
    status: 200,
    contains: ['Collection 1 of 1, state “closed”', /closed just now \(<time[^>]*>[^<]*<\/time>\), cancelled/],
    after: (_h, _r, body, f) => {
      assert.ok(body.includes(f.mine ?? '-'));
      assert.ok(!body.includes(f.theirs ?? '-'));
      assert.match(body, /<option value="closed" selected>/);
    },
  },
  {
    name: 'the list: state=open shows the open ones only',
    path: '/collections?state=open',
    as: 'admin',
    setup: async (h) => {
      const f = await twoCollections(h);
      // Named only devices the user cannot see: reached none, closed at once.
      f.empty = await ask(h, 'user', { scope: { devices: ['o1'] } });
      return f;
    },
    status: 200,
    contains: ['Collections 1–2 of 2, state “open”'],
    after: (_h, _r, body, f) => assert.ok(!body.includes(f.empty ?? '-')),
  },
  {
    name: 'the list: a bad state is refused',
    path: '/collections?state=half',
    as: 'user',
    status: 400,
    contains: ['state must be open or closed'],
  },
  {
    name: 'the list: a bad cursor is refused',
    path: '/collections?before=0',
    as: 'user',
    status: 400,
    contains: ['bad page cursor'],
  },
  {
    name: 'the list: paged by 50, keeping the filter; the older page ends the list',
    path: '/collections?state=closed',
    as: 'user',
    setup: async (h) => {
      await fleet(h);
      const made: string[] = [];
      // Asking only the revoked u4: each skipped, each closed at once.
      for (let i = 0; i < 51; i++) made.push(await ask(h, 'user', { scope: { devices: ['u4'] }, reason: `ask ${i}` }));
      return { first: made[0] ?? '', last: made[50] ?? '' };
    },
    status: 200,
    contains: ['Collections 1–50 of 51 that you asked for, state “closed”', '>Older collections</a>'],
    after: async (h, _r, body, f) => {
      assert.ok(body.includes(f.last ?? '-') && !body.includes(`${f.first}"`), 'newest first: the oldest is on page 2');
      const next = /href="(\/collections\?state=closed&amp;from=51&amp;before=[0-9]+)">Older collections/.exec(
        body,
      )?.[1];
      assert.ok(next, 'the older link keeps the filter');
      const { cookie } = h.signIn(ACCOUNTS.user);
      const older = await (await h.request(next.replaceAll('&amp;', '&'), { headers: { cookie } })).text();
      assert.match(older, /Collection 51 of 51 that you asked for/);
      assert.ok(older.includes(f.first ?? '-'));
      assert.ok(!older.includes('Older collections'));
      assert.ok(older.includes('>Newest collections</a>'));
    },
  },

  // POST /collections from named devices (the device page's form)
  {
    ...asking('user', { ...byDevice, expires_in: '3600' }),
    name: 'asking one device: 303 to the new collection, which targets it; announced',
    status: 303,
    location: /^\/collections\/c_[A-Za-z0-9_-]{16}$/,
    events: ['collection.created'],
    after: async (h, res) => {
      const { c, targets } = await theOnlyCollection(h);
      assert.equal(res.headers.get('location'), `/collections/${c.id}`);
      assert.deepEqual(
        [c.createdBy, c.privacy, c.reason, c.expiresAt - c.createdAt],
        [USER, 'redacted', 'firmware 2.1 on line 3', 3_600_000],
      );
      assert.deepEqual(targets, [['u1', 'pending', null]]);
    },
  },
  {
    ...asking('user', byDevice),
    name: 'expires_in absent: a day',
    status: 303,
    after: async (h) => assert.equal((await theOnlyCollection(h)).c.expiresAt - h.clock.now(), 86_400_000),
  },
  {
    ...asking('user', { ...byDevice, device: ['u1', 'u2', 'u4', 'o1', 'nope'] }),
    name: 'named devices: skipped ones with their reason; another account’s and unknown ones neither reached nor counted',
    status: 303,
    events: ['collection.created'],
    after: async (h) =>
      assert.deepEqual((await theOnlyCollection(h)).targets, [
        ['u1', 'pending', null],
        ['u2', 'skipped', 'ceiling'],
        ['u4', 'skipped', 'revoked'],
      ]),
  },
  {
    ...asking('user', { ...byDevice, device: 'o1' }),
    name: 'naming only another account’s device reaches nothing: created closed, with no target',
    status: 303,
    events: ['collection.created', 'collection.closed'],
    after: async (h) => {
      const { c, targets } = await theOnlyCollection(h);
      assert.deepEqual(targets, []);
      assert.notEqual(c.closedAt, null);
    },
  },
  {
    ...asking('user', {
      ...byDevice,
      device: ['u1', ...Array.from({ length: MAX_NAMED_DEVICES - 1 }, (_, i) => `d_missing${i}`)],
    }),
    name: '1000 device fields are accepted',
    status: 303,
    events: ['collection.created'],
    after: async (h) => assert.deepEqual((await theOnlyCollection(h)).targets, [['u1', 'pending', null]]),
  },

  // POST /collections from the device list's filters
  {
    ...asking('user', { ...byFilter, label: 'site=berlin' }),
    name: 'asking by a filter: the user’s matching devices only, read by the device list’s parser',
    status: 303,
    events: ['collection.created'],
    after: async (h) =>
      assert.deepEqual((await theOnlyCollection(h)).targets, [
        ['u1', 'pending', null],
        ['u2', 'pending', null],
      ]),
  },
  {
    ...asking('admin', { ...byFilter, label: 'site=berlin', privacy: 'redacted' }),
    name: 'an admin’s filter reaches every account’s devices; a ceiling below the level is skipped',
    status: 303,
    events: ['collection.created'],
    after: async (h) =>
      assert.deepEqual((await theOnlyCollection(h)).targets, [
        ['o1', 'pending', null],
        ['u1', 'pending', null],
        ['u2', 'skipped', 'ceiling'],
      ]),
  },
  {
    ...asking('user', byFilter),
    name: 'asking with no filter (the unfiltered list’s form): every device of the user, the revoked one skipped',
    status: 303,
    events: ['collection.created'],
    after: async (h) =>
      assert.deepEqual((await theOnlyCollection(h)).targets, [
        ['u1', 'pending', null],
        ['u2', 'pending', null],
        ['u3', 'pending', null],
        ['u4', 'skipped', 'revoked'],
      ]),
  },
  {
    ...asking('user', { ...byFilter, owner: OTHER }),
    name: 'a filter naming another account’s devices reaches none of them',
    status: 303,
    events: ['collection.created', 'collection.closed'],
    after: async (h) => assert.deepEqual((await theOnlyCollection(h)).targets, []),
  },
  {
    ...asking('user', { ...byFilter, q: 'name-u', status: 'active', label: ['site=berlin', 'site'], sort: 'name' }),
    name: 'every filter of the device list, a label repeated; its order and a blank field change nothing',
    form: { csrf: '$csrf', ...byFilter, q: 'name-u', status: 'active', label: ['site=berlin', 'site'], owner: '' },
    status: 303,
    after: async (h) =>
      assert.deepEqual(
        (await theOnlyCollection(h)).targets.map(([d]) => d),
        ['u1', 'u2'],
      ),
  },

  // Every bad field: its failure, nothing created.
  refused('no reason', { ...byDevice, reason: '' }, 'reason must be 1 to 200 visible characters'),
  refused('a reason of 201 characters', { ...byDevice, reason: 'r'.repeat(201) }, 'reason must be 1 to 200'),
  refused('a reason with a control character', { ...byDevice, reason: 'bell\u0007' }, 'reason must be 1 to 200'),
  refused(
    'an unknown privacy level',
    { ...byDevice, privacy: 'secret' },
    /privacy .*must be full, redacted or minimal/,
  ),
  refused('no privacy level', { reason: 'x', device: 'u1' }, /privacy .*must be/),
  refused(
    'expires_in under a minute',
    { ...byDevice, expires_in: '59' },
    'expires_in must be whole seconds from 60 to 604800',
  ),
  refused('expires_in over a week', { ...byDevice, expires_in: '604801' }, 'expires_in must be'),
  refused('expires_in not whole seconds', { ...byDevice, expires_in: '3600.5' }, 'expires_in must be'),
  refused('expires_in not a number', { ...byDevice, expires_in: '1e4' }, 'expires_in must be'),
  refused(
    '1001 device fields',
    { ...byDevice, device: Array.from({ length: MAX_NAMED_DEVICES + 1 }, (_, i) => (i === 0 ? 'u1' : `d_${i}`)) },
    'device may be given at most 1000 times',
  ),
  refused('a device field that is no device id', { ...byDevice, device: '../u1' }, 'device must name at least one'),
  refused('neither device fields nor a filter', { privacy: 'full', reason: 'x' }, 'device must name at least one'),
  refused('both device fields and a filter', { ...byDevice, match: 'filter' }, 'not both'),
  refused('match other than filter', { ...byFilter, match: 'all' }, 'match must be filter'),
  refused('a filter’s search of 2 characters', { ...byFilter, q: 'ab' }, 'q must be 3 to 128'),
  refused(
    'a filter’s unknown status',
    { ...byFilter, status: 'gone' },
    'status must be active, stale, pending or revoked',
  ),
  refused('a filter’s bad label', { ...byFilter, label: '=x' }, /^label/),
  refused('a filter of 6 labels', { ...byFilter, label: ['a', 'b', 'c', 'd', 'e', 'f'] }, /label/),
  {
    ...asking('user', byDevice),
    name: 'refused, nothing created: a stale csrf',
    form: { ...byDevice, csrf: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    status: 403,
    events: [],
    after: nothingCreated,
  },

  // GET /collections/{id}
  {
    name: 'the collection: what was asked, counts by state, targets linked to their devices, a cancel button',
    path: (_h, f) => `/collections/${f.mine}`,
    as: 'user',
    setup: twoCollections,
    status: 200,
    events: [],
    contains: [
      'firmware &lt;b&gt;2.1&lt;/b&gt;',
      'redacted, or a more private one',
      /<a href="\/collections\/c_[^"?]+\?state=pending">pending<\/a>\s*<\/th>\s*<td>1<\/td>/,
      /<th scope="row">\s*fulfilled\s*<\/th>\s*<td>0<\/td>/,
      '<a href="/devices/u1">name-u1</a> (<code>u1</code>)',
      'skipped: the device is revoked',
      'skipped: the level asked is more revealing than the device’s privacy ceiling',
      'Cancel the open requests',
      /Targets 1–3 of 3,\s+newest first\./,
    ],
    notContains: ['<b>2.1', 'the other one', '<script'],
    after: (_h, _r, body, f) => assert.ok(body.includes(`action="/collections/${f.mine}/cancel"`)),
  },
  {
    name: 'the collection: a fulfilled target links its run; a declined one shows the device’s reason, escaped',
    path: (_h, f) => `/collections/${f.id}`,
    as: 'user',
    setup: async (h) => {
      await fleet(h);
      await device(h, USER, 'u5');
      const id = await ask(h, 'user', { scope: { devices: ['u1', 'u5'] } });
      const [forU1] = await h.store.takeRequests('u1', h.clock.now(), 5);
      const [forU5] = await h.store.takeRequests('u5', h.clock.now(), 5);
      assert.ok(forU1 && forU5);
      await h.store.fulfilRequest('u1', forU1, 'run-7', h.clock.now());
      await h.store.declineRequest('u5', forU5.id, 'user said <no>', h.clock.now());
      return { id };
    },
    status: 200,
    contains: [
      '<a href="/runs/u1/run-7">run <code>run-7</code></a>',
      'declined: “user said &lt;no&gt;”',
      /closed just now/,
    ],
    notContains: ['Cancel the open requests', '<no>'],
  },
  {
    name: 'the collection: targets in one state; its filter form keeps it',
    path: (_h, f) => `/collections/${f.mine}?state=skipped`,
    as: 'user',
    setup: twoCollections,
    status: 200,
    contains: ['Targets 1–2 of 2, in state “skipped”', '<option value="skipped" selected>'],
    notContains: ['name-u1'],
  },
  {
    name: 'the collection: a bad target state is refused',
    path: (_h, f) => `/collections/${f.mine}?state=open`,
    as: 'user',
    setup: twoCollections,
    status: 400,
    contains: ['state must be one of pending, delivered, fulfilled, declined, expired, cancelled, skipped'],
  },
  {
    name: 'the collection: targets paged by 50',
    path: (_h, f) => `/collections/${f.id}`,
    as: 'user',
    setup: async (h) => {
      const ids = Array.from({ length: 51 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      for (const id of ids) await device(h, USER, id);
      return { id: await ask(h, 'user', { scope: { devices: ids } }) };
    },
    status: 200,
    contains: [/Targets 1–50 of 51,\s+newest first\./, '>More targets</a>'],
    after: async (h, _r, body, f) => {
      const next = /href="(\/collections\/[^"?]+\?from=51&amp;before=[0-9]+)">More targets/.exec(body)?.[1];
      assert.ok(next);
      const { cookie } = h.signIn(ACCOUNTS.user);
      const more = await (await h.request(next.replaceAll('&amp;', '&'), { headers: { cookie } })).text();
      assert.match(more, /Target 51 of 51,\s+newest first/);
      assert.ok(more.includes('(<code>p00</code>)'), 'the first device reached is the last shown');
      assert.ok(more.includes(`<a href="/collections/${f.id}">First targets</a>`));
    },
  },
  {
    name: 'the collection: another account’s is not found',
    path: (_h, f) => `/collections/${f.mine}`,
    as: 'other',
    setup: twoCollections,
    status: 404,
    events: [],
    contains: ['collection not found'],
    notContains: ['firmware'],
  },
  {
    name: 'the collection: an admin sees any',
    path: (_h, f) => `/collections/${f.mine}`,
    as: 'admin',
    setup: twoCollections,
    status: 200,
    contains: ['firmware &lt;b&gt;2.1&lt;/b&gt;', 'Cancel the open requests'],
  },
  { name: 'the collection: an unknown id', path: '/collections/c_AAAAAAAAAAAAAAAA', as: 'admin', status: 404 },
  { name: 'the collection: a malformed id', path: '/collections/..%2Fx', as: 'admin', status: 404 },

  // POST /collections/{id}/cancel
  {
    name: 'cancel: its creator cancels the open targets; 303 to the collection, now closed',
    method: 'POST',
    path: (_h, f) => `/collections/${f.mine}/cancel`,
    as: 'user',
    setup: twoCollections,
    form: { csrf: '$csrf' },
    status: 303,
    location: /^\/collections\/c_/,
    events: ['collection.cancelled', 'collection.closed'],
    after: async (h, res, _b, f) => {
      assert.equal(res.headers.get('location'), `/collections/${f.mine}`);
      const { cookie } = h.signIn(ACCOUNTS.user);
      const page = await (await h.request(`/collections/${f.mine}`, { headers: { cookie } })).text();
      assert.match(page, /closed just now \(<time[^>]*>[^<]*<\/time>\), cancelled/);
      assert.match(page, /cancelled<\/a>\s*<\/th>\s*<td>1<\/td>/);
      assert.ok(!page.includes('Cancel the open requests'));
      const theirs = await h.store.collectionVisibleTo(ALL, f.theirs ?? '');
      assert.equal(theirs?.closedAt, null, 'the other collection is untouched');
    },
  },
  {
    name: 'cancel: another account may not: 404, nothing changes',
    method: 'POST',
    path: (_h, f) => `/collections/${f.mine}/cancel`,
    as: 'other',
    setup: twoCollections,
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
    contains: ['collection not found'],
    after: async (h, _r, _b, f) => {
      const c = await h.store.collectionVisibleTo(ALL, f.mine ?? '');
      assert.deepEqual([c?.closedAt, c?.counts.pending], [null, 1]);
    },
  },
  {
    name: 'cancel: an admin may cancel anyone’s',
    method: 'POST',
    path: (_h, f) => `/collections/${f.mine}/cancel`,
    as: 'admin',
    setup: twoCollections,
    form: { csrf: '$csrf' },
    status: 303,
    events: ['collection.cancelled', 'collection.closed'],
  },
  {
    name: 'cancel: an unknown collection',
    method: 'POST',
    path: '/collections/c_AAAAAAAAAAAAAAAA/cancel',
    as: 'admin',
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
  },

  // The device page's form
  {
    name: 'the device page asks for a run at the device’s ceiling or more private, the ceiling selected',
    path: '/devices/u1',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      '<h2>Request a run</h2>',
      '<form method="post" action="/collections">',
      '<input type="hidden" name="device" value="u1" />',
      '<option value="full" selected>',
      '<option value="minimal">',
      '<label for="request-reason">',
      '<option value="86400" selected>1 day</option>',
    ],
  },
  {
    name: 'a device of a minimal ceiling is offered minimal only',
    path: '/devices/u2',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: ['<option value="minimal" selected>'],
    notContains: ['<option value="full"', '<option value="redacted"'],
  },
  {
    name: 'a revoked device takes no requests: no form',
    path: '/devices/u4',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: ['A revoked device takes no requests.'],
    notContains: ['action="/collections"'],
  },

  // The device list's form
  {
    name: 'the device list without a filter offers the form for every device in scope (one page: counted by the page)',
    path: '/devices',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      'Request a run from every device in this list: 4 devices',
      '<input type="hidden" name="match" value="filter" />',
      'Request a run from 4 devices</button>',
    ],
    notContains: ['type="hidden" name="q"', 'type="hidden" name="owner"'],
  },
  {
    name: 'the device list with filters: the form for every device they match, with their number and the filters',
    path: '/devices?label=site%3Dberlin&q=name&sort=name',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      'Request a run from every device matching these filters: 2 devices',
      '<input type="hidden" name="match" value="filter" />',
      '<input type="hidden" name="q" value="name" />',
      '<input type="hidden" name="label" value="site=berlin" />',
      '<option value="minimal" selected>',
      'Request a run from 2 devices</button>',
    ],
    notContains: ['name="sort" value', 'type="hidden" name="owner"'],
  },
  {
    name: 'the device list: more than a page matches, counted by the store on every page',
    path: '/devices?label=line%3D3',
    as: 'user',
    setup: async (h) => {
      await fleet(h);
      for (let i = 0; i < 51; i++) await device(h, USER, `l${i}`, { labels: { line: '3' } });
      await device(h, OTHER, 'o2', { labels: { line: '3' } });
    },
    status: 200,
    contains: ['Request a run from every device matching these filters: 51 devices', '>Older devices</a>'],
    after: async (h, _r, body) => {
      const next = /href="(\/devices\?[^"]*before=[0-9]+)">Older devices/.exec(body)?.[1];
      assert.ok(next);
      const { cookie } = h.signIn(ACCOUNTS.user);
      const older = await (await h.request(next.replaceAll('&amp;', '&'), { headers: { cookie } })).text();
      assert.match(older, /51 of 51 devices that you own/);
      assert.match(older, /matching these filters: 51 devices/);
    },
  },
  {
    name: 'the device list without a filter, more than a page: every device in scope, by the store’s counter',
    path: '/devices',
    as: 'user',
    setup: async (h) => {
      await fleet(h);
      for (let i = 0; i < 51; i++) await device(h, USER, `m${i}`);
      await device(h, OTHER, 'o3');
    },
    status: 200,
    contains: ['Request a run from every device in this list: 55 devices', '>Older devices</a>'],
  },
  {
    name: 'the device list counts for an admin every account’s matching devices',
    path: '/devices?label=site%3Dberlin',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: ['Request a run from every device matching these filters: 3 devices'],
  },
  {
    name: 'the device list: a filter naming another account’s devices counts none of them, and offers no form',
    path: `/devices?owner=${encodeURIComponent(OTHER)}`,
    as: 'user',
    setup: fleet,
    status: 200,
    notContains: ['action="/collections"'],
  },
];

runScenarios('collections', scenarios);
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
runScenarios('collections', scenarios, {
  name: 'postgres',
  open: () => openPostgresStore(PG_URL, { schema: freshSchema() }),
  skip: !available && SKIP_REASON,
});
