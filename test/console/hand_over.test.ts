// Handing over and leaving (docs/contract.md section 19), in the console, as scenario tables and
// one walk through on both stores: an administrator hands one device or a bulk selection to a
// subject or a group, runs and all, each device audited as device.owner_changed with from and to;
// a bad owner is a 400 naming it, a missing device a 404, a non-admin a 403; disabling an account
// with hand_over_to moves every device it owns; the dashboard counts the devices of disabled
// accounts, linked to the list of them; /groups and /groups/{name} show members and devices.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disableAccount } from '../../src/actions/accounts.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, form, harness, type Harness, upload } from '../support/harness.ts';
import { freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { ACCOUNTS, assertEvents, runScenarios, type Scenario } from '../support/scenario.ts';

const admin = { subject: 'local:admin', admin: true };

/** Two devices of Uma (one with two runs), one of Otto; Uma is in group ops. */
async function fleet(h: Harness): Promise<Record<string, string>> {
  await h.store.recordSignIn({ ...ACCOUNTS.user, lastSignInAt: h.clock.now() });
  await h.store.recordSignIn({ ...ACCOUNTS.other, lastSignInAt: h.clock.now() });
  await h.store.setAccountGroups(ACCOUNTS.user.subject, ['ops', 'night shift']);
  const a = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Laptop');
  const b = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Phone');
  const c = await enrollDevice(h, ACCOUNTS.other.subject, 'Otto Board');
  assert.equal((await upload(h, a.credential, 'r1', 'one')).status, 201);
  assert.equal((await upload(h, a.credential, 'r2', 'two')).status, 201);
  return { a: a.device, b: b.device, c: c.device };
}

/** The fleet with the device `key` handed to `owner` first (no webhook subscribed to hear it). */
const fleetHandedOver =
  (key: string, owner: string) =>
  async (h: Harness): Promise<Record<string, string>> => {
    const f = await fleet(h);
    await h.store.handOverDevices([f[key] ?? ''], owner, () => {
      throw new Error('no webhook is subscribed');
    });
    return f;
  };

/** The fleet with its user's account disabled. */
async function fleetUserDisabled(h: Harness): Promise<Record<string, string>> {
  const f = await fleet(h);
  await h.store.setAccountDisabled(ACCOUNTS.user.subject, h.clock.now());
  return f;
}

const owner = async (h: Harness, id: string) => (await h.store.deviceVisibleTo(admin, id))?.owner;

const scenarios: Scenario[] = [
  {
    name: 'hand one device over to a group: 303 to the device, its runs go with it, audited with from and to',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'group:ops' },
    status: 303,
    location: /^\/devices\/d_/,
    events: ['device.owner_changed'],
    logs: [{ event: 'device.owner_changed', from: ACCOUNTS.user.subject, to: 'group:ops', account: 'local:admin' }],
    after: async (h, _res, _body, f) => {
      assert.equal(await owner(h, f.a ?? ''), 'group:ops');
      const uma = { subject: ACCOUNTS.user.subject, admin: false };
      assert.equal((await h.store.runsVisibleTo(uma, { limit: 10 })).items.length, 0, 'no longer hers alone');
      const member = { ...uma, groups: await h.store.accountGroups(uma.subject) };
      assert.equal((await h.store.runsVisibleTo(member, { limit: 10 })).items.length, 2, 'Uma is in ops');
      const otto = { subject: ACCOUNTS.other.subject, admin: false, groups: ['ops'] };
      assert.equal((await h.store.runsVisibleTo(otto, { limit: 10 })).items.length, 2, 'any member reaches the runs');
      await h.flushAudit();
      const audit = await h.store.auditPage({ event: 'device.owner_changed' }, { limit: 5 });
      assert.equal(audit.items.length, 1);
      assert.match(audit.items[0]?.detail ?? '', /from=oidc:user-1.*to=group:ops|to=group:ops.*from=oidc:user-1/);
    },
  },
  {
    name: 'hand a device over to an account subject',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'oidc:user-2' },
    status: 303,
    events: ['device.owner_changed'],
    after: async (h, _res, _body, f) => assert.equal(await owner(h, f.a ?? ''), 'oidc:user-2'),
  },
  {
    name: 'to the owner it has: 303, nothing changes, nothing audited',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'oidc:user-1' },
    status: 303,
    events: [],
  },
  {
    name: 'an owner that is neither a subject nor a group: 400 naming it, nothing changes',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'team:ops' },
    status: 400,
    // docs/contract.md section 22: the device page, the owner as sent, the message beside it (escaped).
    contains: [
      '<strong id="owner-error">',
      '&quot;team:ops&quot;',
      'group:&lt;name&gt;',
      'id="owner" name="owner" value="team:ops"',
    ],
    events: [],
    after: async (h, _res, _body, f) => assert.equal(await owner(h, f.a ?? ''), 'oidc:user-1'),
  },
  {
    name: 'a group without a name: 400 naming it',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'group:' },
    status: 400,
    contains: ['&quot;group:&quot;'],
    events: [],
  },
  {
    name: 'a group name with a control character: 400, shown escaped',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'group:a\u0007b' },
    status: 400,
    contains: ['&quot;group:a\\u0007b&quot;', 'value="group:a\u2407b"'],
    notContains: ['\u0007'],
    events: [],
  },
  {
    name: 'an unknown device: 404, whatever the owner',
    method: 'POST',
    path: '/devices/d_nosuchdevice0000/owner',
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'group:ops' },
    status: 404,
    events: [],
  },
  {
    name: 'a non-admin, even the owner: 403, logged',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'user',
    setup: fleet,
    form: { csrf: '$csrf', owner: 'oidc:user-2' },
    status: 403,
    events: ['access.admin_refused'],
  },
  {
    name: 'without csrf: 403 stale form, nothing changes',
    method: 'POST',
    path: (_h, f) => `/devices/${f.a}/owner`,
    as: 'admin',
    setup: fleet,
    form: { owner: 'group:ops' },
    status: 403,
    events: [],
    after: async (h, _res, _body, f) => assert.equal(await owner(h, f.a ?? ''), 'oidc:user-1'),
  },
  {
    name: 'bulk: each device as if alone, one event each, the summary counts them',
    method: 'POST',
    path: '/devices/bulk',
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', action: 'owner', owner: 'group:ops', device: ['$fixture.a', '$fixture.c', 'd_unknown0000'] },
    status: 303,
    location: '/devices',
    events: ['device.owner_changed', 'device.owner_changed'],
    after: async (h, res, _body, f) => {
      assert.equal(await owner(h, f.a ?? ''), 'group:ops');
      assert.equal(await owner(h, f.c ?? ''), 'group:ops');
      assert.equal(await owner(h, f.b ?? ''), 'oidc:user-1');
      const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]);
      const { cookie: session } = h.signIn(ACCOUNTS.admin);
      const page = await (await h.request('/devices', { headers: { cookie: [session, ...cookie].join('; ') } })).text();
      assert.match(page, /2 devices handed over with their runs; 1 not found or not yours: nothing done\./);
    },
  },
  {
    name: 'bulk with a bad owner: 400 before any device is touched',
    method: 'POST',
    path: '/devices/bulk',
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', action: 'owner', owner: 'nobody', device: ['$fixture.a'] },
    status: 400,
    contains: ['"nobody"'],
    events: [],
  },
  {
    name: 'leaving: disable with hand_over_to moves every device it owns, each audited',
    method: 'POST',
    path: '/accounts/oidc%3Auser-1/disable',
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', hand_over_to: 'group:ops' },
    status: 303,
    location: '/accounts/oidc%3Auser-1',
    events: ['account.disabled', 'device.owner_changed', 'device.owner_changed'],
    logs: [{ event: 'device.owner_changed', reason: 'left', to: 'group:ops' }],
    after: async (h, _res, _body, f) => {
      assert.equal(await owner(h, f.a ?? ''), 'group:ops');
      assert.equal(await owner(h, f.b ?? ''), 'group:ops');
      assert.equal(await owner(h, f.c ?? ''), 'oidc:user-2');
      assert.equal((await h.store.accountState('oidc:user-1'))?.disabledAt !== null, true);
    },
  },
  {
    name: 'leaving without hand_over_to: the devices stay, never deleted',
    method: 'POST',
    path: '/accounts/oidc%3Auser-1/disable',
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', hand_over_to: '' },
    status: 303,
    events: ['account.disabled'],
    after: async (h, _res, _body, f) => {
      assert.equal(await owner(h, f.a ?? ''), 'oidc:user-1');
      assert.equal(await h.store.disabledOwnersDevices(), 2);
    },
  },
  {
    name: 'leaving with a bad hand_over_to: 400 naming it, the account is not disabled',
    method: 'POST',
    path: '/accounts/oidc%3Auser-1/disable',
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', hand_over_to: 'group:\u0001' },
    status: 400,
    contains: ['hand_over_to'],
    events: [],
    after: async (h) => assert.equal((await h.store.accountState('oidc:user-1'))?.disabledAt, null),
  },
  {
    name: 'the account page shows its groups and offers them to hand its devices to',
    path: '/accounts/oidc%3Auser-1',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: [
      '<a href="/groups/night%20shift">night shift</a>',
      '<a href="/groups/ops">ops</a>',
      'name="hand_over_to"',
      '<option value="group:ops"></option>',
    ],
  },
  {
    name: 'the groups list: from accounts and owners, members and devices, linked',
    path: '/groups',
    as: 'admin',
    setup: fleetHandedOver('c', 'group:lab'),
    status: 200,
    contains: [
      '<a href="/groups/lab">lab</a>',
      '<a href="/groups/night%20shift">night shift</a>',
      '<a href="/groups/ops">ops</a>',
      '<a href="/devices?owner=group%3Alab">1 device</a>',
      '1: <a href="/accounts/oidc%3Auser-1">Uma User</a>',
      '<a href="/groups">Groups</a>',
    ],
  },
  {
    name: 'one group: its members and its devices',
    path: '/groups/ops',
    as: 'admin',
    setup: fleetHandedOver('a', 'group:ops'),
    status: 200,
    contains: ['<code>group:ops</code>', 'Uma User', 'Uma Laptop', '1 device'],
    notContains: ['Otto Board'],
  },
  { name: 'an unknown group: 404', path: '/groups/nobody', as: 'admin', setup: fleet, status: 404 },
  { name: 'the groups list is admin only', path: '/groups', as: 'user', status: 403, events: ['access.admin_refused'] },
  {
    name: 'a group page is admin only, even for a member',
    path: '/groups/ops',
    as: 'user',
    setup: fleet,
    status: 403,
    events: ['access.admin_refused'],
  },
  {
    name: 'the groups link is for administrators',
    path: '/',
    as: 'user',
    status: 200,
    notContains: ['href="/groups"', 'Held by disabled accounts'],
  },
  {
    name: 'the dashboard counts the devices of disabled accounts, linked to the list of them',
    path: '/',
    as: 'admin',
    setup: fleetUserDisabled,
    status: 200,
    contains: ['Held by disabled accounts', '<a href="/devices?owner_disabled=yes">2</a>'],
  },
  {
    name: 'the list of devices of disabled accounts',
    path: '/devices?owner_disabled=yes',
    as: 'admin',
    setup: fleetUserDisabled,
    status: 200,
    contains: ['Uma Laptop', 'Uma Phone', 'held by disabled accounts'],
    notContains: ['Otto Board'],
  },
  { name: 'owner_disabled takes yes or nothing', path: '/devices?owner_disabled=1', as: 'admin', status: 400 },
];

runScenarios('hand over', scenarios);

const pg = await postgresAvailable();
const backends: Array<{ name: string; open: () => Promise<Store>; skip: string | false }> = [
  { name: 'sqlite', open: async () => openSqliteStore(':memory:'), skip: false },
  { name: 'postgres', open: () => openPostgresStore(PG_URL, { schema: freshSchema() }), skip: !pg && SKIP_REASON },
];

for (const backend of backends)
  test(
    `hand over (${backend.name}): a leaving account's devices move to its group and stay off the dashboard's count`,
    {
      skip: backend.skip,
    },
    async () => {
      const h = await harness({ store: await backend.open() });
      try {
        const f = await fleet(h);
        const { cookie, csrf } = h.signIn(ACCOUNTS.admin);
        const heard = h.logs.length;
        const res = await h.request(
          '/accounts/oidc%3Auser-1/disable',
          form({ csrf, hand_over_to: 'group:ops' }, cookie),
        );
        assert.equal(res.status, 303);
        assertEvents(h, heard, ['account.disabled', 'device.owner_changed', 'device.owner_changed']);
        assert.equal(await h.store.disabledOwnersDevices(), 0);
        const member = { subject: 'oidc:someone', admin: false, groups: ['ops'] };
        await h.store.setAccountGroups(member.subject, ['ops']);
        assert.deepEqual(
          (await h.store.devicesVisibleTo(member, { limit: 10 })).items.map((d) => d.id).sort(),
          [f.a, f.b].sort(),
        );
        assert.deepEqual(await h.store.countsVisibleTo(member), { devices: 2, activeDevices: 2, runs: 2 });
        const page = await (await h.request('/accounts/oidc%3Auser-1', { headers: { cookie } })).text();
        assert.match(page, /No devices\./);
      } finally {
        await h.close();
      }
    },
  );

test('leaving, batch after batch: 120 devices (three of SQLite’s batches) all move, each audited once', async () => {
  const h = await harness();
  try {
    await h.store.recordSignIn({ ...ACCOUNTS.user, lastSignInAt: h.clock.now() });
    for (let i = 0; i < 120; i++) await enrollDevice(h, ACCOUNTS.user.subject, `d${i}`);
    const heard = h.logs.length;
    const done = await disableAccount(
      { store: h.store, logger: h.logger, clock: h.clock },
      { ...ACCOUNTS.admin, client: '192.0.2.1' },
      { subject: ACCOUNTS.user.subject, breakGlass: 'local:admin', handOverTo: 'group:it' },
    );
    assert.deepEqual(done, { ok: true, sessions: 0, handedOver: 120 });
    const moved = h.logs.slice(heard).filter((r) => r.event === 'device.owner_changed');
    assert.equal(moved.length, 120);
    assert.equal(new Set(moved.map((r) => r.device)).size, 120);
    assert.deepEqual(await h.store.devicesOwnedBy(ACCOUNTS.user.subject, 10), []);
    await h.flushAudit();
    const audited = await h.store.auditPage({ event: 'device.owner_changed' }, { limit: 200 });
    assert.equal(audited.items.length, 120);
  } finally {
    await h.close();
  }
});
