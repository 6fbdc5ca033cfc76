// The confirmation pages (docs/contract.md section 22, "Irreversible actions are confirmed"): each
// says what will happen, to how many (named) and whether it can be undone, with the form that posts
// to the action's own route; out of scope and for a non-admin it answers exactly as the action
// would; and its form, posted as it is, does the action.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebhook } from '../../src/actions/webhooks.ts';
import { revokeDevice } from '../../src/actions/devices.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { enrollPending } from '../support/pending_device.ts';
import { ACCOUNTS, assertEvents } from '../support/scenario.ts';

const ADMIN = { subject: 'local:admin', admin: true, client: null };
const LIST = '/devices?label=site%3Ds1&before=123';

/** Uma's laptop (two runs) and her revoked phone, Otto's board (one run), a pending device, a webhook. */
async function fleet(h: Harness): Promise<Record<string, string>> {
  await h.store.recordSignIn({ ...ACCOUNTS.user, lastSignInAt: h.clock.now() });
  const a = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma <Laptop>');
  const b = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Phone');
  const c = await enrollDevice(h, ACCOUNTS.other.subject, 'Otto Board');
  assert.equal((await upload(h, a.credential, 'r1', 'one')).status, 201);
  assert.equal((await upload(h, a.credential, 'r2', 'two')).status, 201);
  assert.equal((await upload(h, c.credential, 'r3', 'three')).status, 201);
  const deps = { store: h.store, logger: memoryLogger(), clock: h.clock };
  assert.equal(await revokeDevice(deps, ADMIN, b.device), 'revoked');
  const pending = await enrollPending(h, ACCOUNTS.user.subject, 'Waiting One');
  const made = await createWebhook({ ...deps, sealKey: Buffer.alloc(32, 7), allowPrivate: false }, ADMIN, {
    url: 'https://hooks.example.com/p?x=<b>',
    events: ['device.revoked'],
    description: '',
  });
  assert.ok(made.ok);
  return { a: a.device, b: b.device, c: c.device, pending, hook: made.webhook.id };
}

/** The page's confirmation form (the one in <main>): its action and hidden fields, in order. */
function confirmForm(page: string): { action: string; fields: Array<[string, string]> } {
  const main = page.slice(page.indexOf('<main'));
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(main);
  assert.ok(form, 'a form that posts');
  const unescape = (s: string) =>
    s
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
  const fields = [...(form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)].map(
    (m): [string, string] => [unescape(m[1] ?? ''), unescape(m[2] ?? '')],
  );
  return { action: unescape(form[1] ?? ''), fields };
}

type Who = keyof typeof ACCOUNTS;
type Signed = { cookie: string; csrf: string };

/** A form post: `csrf` first (unless `csrf` is false: the fields carry it), then the fields, a list repeated. */
function post(who: Signed, fields: Array<[string, string]> | Record<string, string | string[]> = {}, csrf = true) {
  const body = new URLSearchParams(csrf ? [['csrf', who.csrf]] : []);
  const pairs: Array<[string, string | string[]]> = Array.isArray(fields) ? fields : Object.entries(fields);
  for (const [k, v] of pairs) for (const one of typeof v === 'string' ? [v] : v) body.append(k, one);
  return {
    method: 'POST',
    headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  };
}

/** Posts the page's form as a browser would, with the session's cookie. */
function submit(h: Harness, page: string, who: Signed): Promise<Response> {
  const { action, fields } = confirmForm(page);
  return h.request(action, post(who, fields, false));
}

/** One confirmation page, asked (GET, or POST with `form`) by `as` on a fresh fleet. */
interface Row {
  name: string;
  as: Who;
  path: (f: Record<string, string>) => string;
  form?: (f: Record<string, string>) => Record<string, string | string[]>;
  contains: string[];
  notContains?: string[];
  /** The route the page's form posts to. */
  action: (f: Record<string, string>) => string;
  /** The form's fields after `csrf`; when omitted, not checked. */
  fields?: (f: Record<string, string>) => Array<[string, string]>;
  /** The page's form posted as it is: what it must have done. */
  posted?: (h: Harness, res: Response, f: Record<string, string>) => Promise<void> | void;
}

function confirmations(rows: Row[]): void {
  for (const row of rows) {
    test(`confirmation pages: ${row.name}`, async () => {
      const h = await harness();
      try {
        const f = await fleet(h);
        const who = h.signIn(ACCOUNTS[row.as]);
        const heard = h.logs.length;
        const path = row.path(f);
        const res = await h.request(path, row.form ? post(who, row.form(f)) : { headers: { cookie: who.cookie } });
        const page = await res.text();
        assert.equal(res.status, 200, `${path}: ${page.slice(0, 300)}`);
        assertEvents(h, heard, []);
        for (const want of row.contains) assert.ok(page.includes(want), `${path} must say ${want}`);
        for (const unwanted of row.notContains ?? [])
          assert.ok(!page.includes(unwanted), `${path} must not say ${unwanted}`);
        const form = confirmForm(page);
        assert.equal(form.action, row.action(f));
        assert.deepEqual(form.fields[0], ['csrf', who.csrf], 'the session’s csrf, first');
        if (row.fields) assert.deepEqual(form.fields.slice(1), row.fields(f));
        await row.posted?.(h, await submit(h, page, who), f);
      } finally {
        await h.close();
      }
    });
  }
}

const revokedAt = async (h: Harness, id: string | undefined) =>
  (await h.store.deviceVisibleTo(ADMIN, id ?? ''))?.revokedAt;

confirmations([
  {
    name: 'revoke: names the device, says it cannot be undone, the form posts to the action and carries return',
    as: 'admin',
    path: (f) => `/devices/${f.a}/revoke?return=${encodeURIComponent(LIST)}`,
    contains: [
      '<h1>Revoke device Uma &lt;Laptop&gt;?</h1>',
      'refuses its credential at once',
      '<strong>This cannot be undone.</strong>',
      '<button type="submit">Revoke 1 device</button>',
      `<a href="${LIST.replaceAll('&', '&amp;')}">Back to the list</a>`,
    ],
    action: (f) => `/devices/${f.a}/revoke`,
    fields: () => [['return', LIST]],
    posted: async (h, res, f) => {
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), LIST);
      assert.notEqual(await revokedAt(h, f.a), null);
    },
  },
  {
    name: 'revoke of a revoked device: says nothing changes; without return, back to the device',
    as: 'admin',
    path: (f) => `/devices/${f.b}/revoke`,
    contains: ['is already revoked: revoking it again changes nothing', 'Back to the device'],
    action: (f) => `/devices/${f.b}/revoke`,
    fields: () => [],
  },
  {
    name: 'reject: a pending device is revoked by it, which cannot be undone; the form rejects it',
    as: 'admin',
    path: (f) => `/devices/${f.pending}/reject`,
    contains: ['<h1>Reject device Waiting One?</h1>', 'revokes it', 'This cannot be undone.', 'Reject 1 device'],
    action: (f) => `/devices/${f.pending}/reject`,
    posted: async (h, res, f) => {
      assert.equal(res.headers.get('location'), `/devices/${f.pending}`);
      assert.notEqual(await revokedAt(h, f.pending), null);
    },
  },
  {
    name: 'device delete: a revoked device with its runs, what is stored, cannot be undone',
    as: 'admin',
    path: (f) => `/devices/${f.b}/delete`,
    contains: [
      '<h1>Delete device Uma Phone?</h1>',
      'every one of its runs',
      'This cannot be undone.',
      'Delete 1 device and its runs',
    ],
    action: (f) => `/devices/${f.b}/delete`,
    posted: async (h, res, f) => {
      assert.equal(res.headers.get('location'), '/devices');
      assert.equal(await h.store.deviceVisibleTo(ADMIN, f.b ?? ''), undefined);
    },
  },
  {
    name: 'run delete: the owner sees the run named with its device; cannot be undone; return rides along',
    as: 'user',
    path: (f) => `/runs/${f.a}/r1/delete?return=${encodeURIComponent('/runs?privacy=full')}`,
    contains: ['<h1>Delete run r1?</h1>', 'Uma &lt;Laptop&gt;', 'This cannot be undone.', 'Delete 1 run'],
    action: (f) => `/runs/${f.a}/r1/delete`,
    fields: () => [['return', '/runs?privacy=full']],
    posted: async (h, res, f) => {
      assert.equal(res.headers.get('location'), '/runs?privacy=full');
      assert.equal(await h.store.runVisibleTo(ADMIN, f.a ?? '', 'r1'), undefined);
    },
  },
  {
    name: 'webhook delete: names the endpoint (escaped); its deliveries go; cannot be undone',
    as: 'admin',
    path: (f) => `/webhooks/${f.hook}/delete`,
    contains: ['<code>https://hooks.example.com/p?x=', 'every delivery recorded for it', 'This cannot be undone.'],
    notContains: ['<b>'],
    action: (f) => `/webhooks/${f.hook}/delete`,
    posted: async (h, res, f) => {
      assert.equal(res.headers.get('location'), '/webhooks');
      assert.equal(await h.store.webhook(f.hook ?? ''), undefined);
    },
  },
  {
    name: 'account disable: its sessions and devices counted, where they go, how it is undone',
    as: 'admin',
    path: () => '/accounts/oidc%3Auser-1/disable?hand_over_to=group%3Aops',
    contains: [
      '<h1>Disable Uma User?</h1>',
      'ends its 0 live sessions',
      'Its 3 devices and their runs are handed over to <code>group:ops</code>',
      'It can be enabled again',
      'Disable 1 account',
    ],
    notContains: ['This cannot be undone.'],
    action: () => '/accounts/oidc%3Auser-1/disable',
    fields: () => [['hand_over_to', 'group:ops']],
    posted: async (h, res) => {
      assert.equal(res.status, 303);
      assert.notEqual((await h.store.accountState('oidc:user-1'))?.disabledAt, null);
    },
  },
  {
    name: 'bulk revoke: how many, each named; those left alone and those not found said; the same fields posted',
    as: 'admin',
    path: () => '/devices/bulk/confirm',
    form: (f) => ({ action: 'revoke', device: [f.a ?? '', f.c ?? '', f.b ?? '', 'd_nosuch'], return: LIST }),
    contains: [
      '<h1>Revoke 2 devices?</h1>',
      'Uma &lt;Laptop&gt;',
      'Otto Board',
      '1 selected device is already revoked: nothing changes',
      '1 selected device was not found',
      'This cannot be undone.',
      '<button type="submit">Revoke 2 devices</button>',
    ],
    action: () => '/devices/bulk',
    fields: (f) => [
      ['action', 'revoke'],
      ['device', f.a ?? ''],
      ['device', f.c ?? ''],
      ['device', f.b ?? ''],
      ['device', 'd_nosuch'],
      ['return', LIST],
    ],
    posted: async (h, res, f) => {
      assert.equal(res.headers.get('location'), LIST);
      assert.notEqual(await revokedAt(h, f.c), null);
    },
  },
  {
    name: 'bulk delete: only revoked devices are deleted, the others named as left',
    as: 'admin',
    path: () => '/devices/bulk/confirm',
    form: (f) => ({ action: 'delete', device: [f.a ?? '', f.b ?? ''] }),
    contains: [
      '<h1>Delete 1 device?</h1>',
      'deleted with every one of their runs',
      'not revoked: they are not deleted',
    ],
    action: () => '/devices/bulk',
  },
  {
    name: 'bulk reject: the pending device only; cannot be undone',
    as: 'admin',
    path: () => '/devices/bulk/confirm',
    form: (f) => ({ action: 'reject', device: [f.a ?? '', f.pending ?? ''] }),
    contains: ['<h1>Reject 1 device?</h1>', 'Waiting One', 'not waiting for approval', 'This cannot be undone.'],
    action: () => '/devices/bulk',
  },
  {
    name: 'bulk hand-over is confirmed too, and says how it is undone',
    as: 'admin',
    path: () => '/devices/bulk/confirm',
    form: (f) => ({ action: 'owner', owner: 'group:ops', device: [f.a ?? ''] }),
    contains: ['<h1>Hand over 1 device?</h1>', '<code>group:ops</code>', 'handed back later'],
    notContains: ['This cannot be undone.'],
    action: () => '/devices/bulk',
    fields: (f) => [
      ['action', 'owner'],
      ['owner', 'group:ops'],
      ['device', f.a ?? ''],
    ],
  },
  {
    name: 'bulk run delete: the account’s own runs named, another’s counted as not found',
    as: 'user',
    path: () => '/runs/bulk/confirm',
    form: (f) => ({ action: 'delete', run: [`${f.a}/r1`, `${f.c}/r3`, 'nonsense'] }),
    contains: ['<h1>Delete 1 run?</h1>', '2 selected runs were not found, or not yours', 'This cannot be undone.'],
    notContains: ['Otto Board'],
    action: () => '/runs/bulk',
    posted: async (h, res, f) => {
      assert.equal(res.headers.get('location'), '/runs');
      assert.equal(await h.store.runVisibleTo(ADMIN, f.a ?? '', 'r1'), undefined);
      assert.ok(await h.store.runVisibleTo(ADMIN, f.c ?? '', 'r3'));
    },
  },
  {
    name: 'a collection to several named devices: the level, the reason, the devices named; it can be cancelled',
    as: 'admin',
    path: () => '/collections/confirm',
    form: (f) => ({ privacy: 'minimal', reason: 'incident 7', expires_in: '3600', device: [f.a ?? '', f.c ?? ''] }),
    contains: ['<h1>Request a run from 2 devices?</h1>', 'incident 7', '1 hour', 'Otto Board', 'can be cancelled'],
    action: () => '/collections',
    posted: (_h, res) => {
      assert.equal(res.status, 303);
      assert.match(res.headers.get('location') ?? '', /^\/collections\//);
    },
  },
  {
    name: 'a collection by the list’s filters: counted, the filters carried',
    as: 'user',
    path: () => '/collections/confirm',
    form: () => ({ privacy: 'minimal', reason: 'routine', match: 'filter', q: 'Uma' }),
    contains: ['Request a run from 2 devices?', 'matching the filters'],
    action: () => '/collections',
    fields: () => [
      ['privacy', 'minimal'],
      ['reason', 'routine'],
      ['match', 'filter'],
      ['q', 'Uma'],
    ],
  },
]);

test('confirmation pages: bulk labelling needs no confirmation: done at once, as POST /devices/bulk does it', async () => {
  const h = await harness();
  try {
    const f = await fleet(h);
    const heard = h.logs.length;
    const res = await h.request(
      '/devices/bulk/confirm',
      post(h.signIn(ACCOUNTS.admin), { action: 'label', label: 'site=s1', device: f.a ?? '', return: LIST }),
    );
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), LIST);
    assertEvents(h, heard, ['device.labelled']);
  } finally {
    await h.close();
  }
});

/** Two requests on one harness answer alike: same status, same body, same events. */
async function same(
  h: Harness,
  a: { path: string; init?: RequestInit },
  b: { path: string; init?: RequestInit },
): Promise<Response> {
  const heard = h.logs.length;
  const first = await h.request(a.path, a.init);
  const firstBody = await first.text();
  const events = h.logs.slice(heard).map((r) => r.event);
  const again = h.logs.length;
  const second = await h.request(b.path, b.init);
  assert.equal(first.status, second.status, `${a.path} and ${b.path}`);
  assert.equal(firstBody, await second.text(), `${a.path} and ${b.path}`);
  assertEvents(h, again, events);
  return first;
}

test('confirmation pages answer as their actions do: out of scope, not in the state asked, and to a non-admin', async () => {
  const h = await harness();
  try {
    const f = await fleet(h);
    const admin = h.signIn(ACCOUNTS.admin);
    const user = h.signIn(ACCOUNTS.user);
    const getAs = (who: { cookie: string }) => ({ headers: { cookie: who.cookie } });
    const pairs: Array<[string, string, typeof admin, number, Record<string, string>?]> = [
      // Out of scope, or no such thing: 404 with the action's body.
      [`/devices/d_nosuch/revoke`, `/devices/d_nosuch/revoke`, admin, 404],
      [`/devices/d_nosuch/reject`, `/devices/d_nosuch/reject`, admin, 404],
      [`/devices/d_nosuch/delete`, `/devices/d_nosuch/delete`, admin, 404],
      [`/runs/${f.c}/r3/delete`, `/runs/${f.c}/r3/delete`, user, 404],
      [`/runs/${f.a}/nosuch/delete`, `/runs/${f.a}/nosuch/delete`, user, 404],
      [`/webhooks/wh_AAAAAAAAAAAAAAAA/delete`, `/webhooks/wh_AAAAAAAAAAAAAAAA/delete`, admin, 404],
      [`/accounts/oidc%3Anobody/disable`, `/accounts/oidc%3Anobody/disable`, admin, 404],
      // Not in the state the action needs: its 409.
      [`/devices/${f.a}/reject`, `/devices/${f.a}/reject`, admin, 409],
      [`/devices/${f.a}/delete`, `/devices/${f.a}/delete`, admin, 409],
      [`/accounts/local%3Aadmin/disable`, `/accounts/local%3Aadmin/disable`, admin, 409],
      // A bad hand-over owner: the action's 400.
      [
        `/accounts/oidc%3Auser-1/disable?hand_over_to=nobody`,
        `/accounts/oidc%3Auser-1/disable`,
        admin,
        400,
        { hand_over_to: 'nobody' },
      ],
      // A non-admin on an admin-only confirmation: the guard's 403, logged as the action's is.
      [`/devices/${f.a}/revoke`, `/devices/${f.a}/revoke`, user, 403],
      [`/devices/${f.pending}/reject`, `/devices/${f.pending}/reject`, user, 403],
      [`/devices/${f.b}/delete`, `/devices/${f.b}/delete`, user, 403],
      [`/webhooks/${f.hook}/delete`, `/webhooks/${f.hook}/delete`, user, 403],
      [`/accounts/oidc%3Auser-1/disable`, `/accounts/oidc%3Auser-1/disable`, user, 403],
    ];
    for (const [page, action, who, status, fields] of pairs) {
      const res = await same(h, { path: page, init: getAs(who) }, { path: action, init: post(who, fields) });
      assert.equal(res.status, status, page);
    }
    const refused = h.logs.filter((r) => r.event === 'access.admin_refused');
    assert.equal(refused.length, 10, 'each refusal to a non-admin is logged, the page’s as the action’s');

    // The bulk steps refuse what the bulk actions refuse, alike.
    const bulk: Array<[string, string, typeof admin, Record<string, string | string[]>]> = [
      ['/devices/bulk/confirm', '/devices/bulk', admin, { action: 'explode', device: f.a ?? '' }],
      ['/devices/bulk/confirm', '/devices/bulk', admin, { action: 'revoke' }],
      ['/devices/bulk/confirm', '/devices/bulk', admin, { action: 'owner', owner: 'nobody', device: f.a ?? '' }],
      ['/devices/bulk/confirm', '/devices/bulk', user, { action: 'revoke', device: f.a ?? '' }],
      ['/runs/bulk/confirm', '/runs/bulk', user, { action: 'explode', run: `${f.a}/r1` }],
      ['/runs/bulk/confirm', '/runs/bulk', user, {}],
      ['/collections/confirm', '/collections', user, { privacy: 'nope', reason: '', device: f.a ?? '' }],
      ['/collections/confirm', '/collections', user, { privacy: 'minimal', reason: '', match: 'everything' }],
    ];
    for (const [step, action, who, fields] of bulk) {
      const res = await same(h, { path: step, init: post(who, fields) }, { path: action, init: post(who, fields) });
      assert.ok(res.status >= 400 && res.status < 500, `${step} ${JSON.stringify(fields)}: ${res.status}`);
    }
  } finally {
    await h.close();
  }
});

test('the device page links to the confirmation pages instead of posting; approve stays one click', async () => {
  const h = await harness();
  try {
    const f = await fleet(h);
    const { cookie } = h.signIn(ACCOUNTS.admin);
    const active = await (await h.request(`/devices/${f.a}`, { headers: { cookie } })).text();
    assert.ok(active.includes(`href="/devices/${f.a}/revoke"`));
    assert.ok(!active.includes(`action="/devices/${f.a}/revoke"`));
    const revoked = await (await h.request(`/devices/${f.b}`, { headers: { cookie } })).text();
    assert.ok(revoked.includes(`href="/devices/${f.b}/delete"`));
    assert.ok(!revoked.includes(`action="/devices/${f.b}/delete"`));
    const pending = await (await h.request(`/devices/${f.pending}`, { headers: { cookie } })).text();
    assert.ok(pending.includes(`action="/devices/${f.pending}/approve"`));
    assert.ok(pending.includes(`href="/devices/${f.pending}/reject"`));
    assert.ok(!pending.includes(`action="/devices/${f.pending}/reject"`));
    const hook = await (await h.request(`/webhooks/${f.hook}`, { headers: { cookie } })).text();
    assert.ok(
      hook.includes(`href="/webhooks/${f.hook}/delete"`) && !hook.includes(`action="/webhooks/${f.hook}/delete"`),
    );
    const run = await (await h.request(`/runs/${f.a}/r1`, { headers: { cookie } })).text();
    assert.ok(run.includes(`href="/runs/${f.a}/r1/delete"`) && !run.includes(`action="/runs/${f.a}/r1/delete"`));
    const account = await (await h.request('/accounts/oidc%3Auser-1', { headers: { cookie } })).text();
    assert.ok(account.includes('<form method="get" action="/accounts/oidc%3Auser-1/disable">'));
  } finally {
    await h.close();
  }
});
