// The webhook pages and actions (docs/contract.md section 13), admin only: each row one request on
// a fresh harness, with exactly the events it emits, what it changed in the store and, for the
// answers that show a signing secret, that the secret is nowhere else.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWebhook, testWebhook } from '../../src/actions/webhooks.ts';
import { CLAIM_MS } from '../../src/domain/webhooks.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import type { Harness } from '../support/harness.ts';
import { ACCOUNTS, assertEvents, runScenarios } from '../support/scenario.ts';

const URL_A = 'https://hooks.example.com/paddock?x=<b>';
const ADMIN = { subject: 'local:admin', admin: true, client: null };

function deps(h: Harness) {
  return { store: h.store, logger: memoryLogger(), clock: h.clock, sealKey: randomBytes(32), allowPrivate: false };
}

/** An endpoint, and one of its deliveries with an attempt that got a 500 (a retry is due). */
async function oneEndpoint(h: Harness): Promise<Record<string, string>> {
  const made = await createWebhook(deps(h), ADMIN, {
    url: URL_A,
    events: ['device.revoked', 'run.stored'],
    description: 'pager <i>duty</i>',
  });
  assert.ok(made.ok);
  const other = await createWebhook(deps(h), ADMIN, {
    url: 'https://other.example.com/',
    events: ['*'],
    description: '',
  });
  assert.ok(other.ok);
  assert.equal(await testWebhook(deps(h), ADMIN, made.webhook.id), 'done');
  const [claimed] = await h.store.claimDeliveries(h.clock.now(), 10, CLAIM_MS);
  assert.ok(claimed);
  await h.store.finishAttempt(
    {
      seq: claimed.seq,
      attempt: 1,
      endpoint: made.webhook.id,
      at: h.clock.now(),
      statusCode: 500,
      error: null,
      durationMs: 42,
    },
    { kind: 'retry', at: h.clock.now() + 60_000, disableIfFailingSince: 0 },
  );
  return { id: made.webhook.id, other: other.webhook.id, delivery: String(claimed.seq), message: claimed.message };
}

const secretOn = (page: string) => /id="secret"[^>]*>(whsec_[A-Za-z0-9+/=]+)</.exec(page)?.[1];

/** The secret shown is on this page only: no log record, no audit record, no header holds it. */
async function secretShownOnce(h: Harness, res: Response, page: string) {
  const secret = secretOn(page);
  assert.ok(secret, 'the secret is on the page');
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
  assert.ok(!JSON.stringify(h.logs).includes(secret), 'no log record holds the secret');
  for (const [, value] of res.headers) assert.ok(!value.includes(secret), 'no header holds the secret');
  await h.flushAudit();
  const audit = await h.store.auditPage({}, { limit: 50 });
  assert.ok(!JSON.stringify(audit).includes(secret), 'no audit record holds the secret');
  assert.equal(res.headers.get('cache-control'), 'no-store');
}

const add = (fields: Record<string, string>) => ({
  method: 'POST',
  path: '/webhooks',
  as: 'admin' as const,
  form: { csrf: '$csrf', ...fields },
});

runScenarios('webhooks', [
  {
    name: 'an admin sees no endpoint yet, and the add form with every event webhooks carry',
    path: '/webhooks',
    as: 'admin',
    status: 200,
    events: [],
    headersMatch: { 'content-security-policy': "default-src 'none'" },
    contains: [
      'There are no endpoints.',
      '<form method="post" action="/webhooks">',
      'value="*"',
      'value="device.revoked"',
      'value="webhook.test"',
      // The catalogue's help is Markdown: its `code` spans are <code>, no backtick shows (issue 45).
      /<code>run\.stored<\/code>: a run was stored \(webhooks: only when named, never in <code>\*<\/code>\)/,
      /<code>device\.revoked<\/code>: a device was revoked, by an account or by the stale sweep \(<code>system<\/code>, reason <code>stale<\/code>\)/,
      '<a href="/webhooks">Webhooks</a>',
    ],
    notContains: ['<script', 'value="webhook.created"', '`'],
  },
  {
    name: 'the list shows each endpoint: URL, events, enabled, last delivery and outcome, failures in a row',
    path: '/webhooks',
    as: 'admin',
    setup: oneEndpoint,
    status: 200,
    events: [],
    contains: [
      'https://hooks.example.com/paddock?x=%3Cb%3E',
      'pager &lt;i&gt;duty&lt;/i&gt;',
      'device.revoked, run.stored',
      '* (all but the opt-in ones)',
      /just now \(<time[^>]*>[^<]*<\/time>\): 500<\/td>/,
      'none yet',
      /<td>1<\/td>/,
    ],
    notContains: ['<i>duty', 'whsec_'],
    after: (_h, _r, body, f) => assert.ok(body.includes(`<a href="/webhooks/${f.id}">`)),
  },
  {
    name: 'a user may not see the webhooks: 403, logged',
    path: '/webhooks',
    as: 'user',
    status: 403,
    events: ['access.admin_refused'],
    notContains: ['<form'],
  },
  { name: 'nobody signed in is sent to sign in', path: '/webhooks', as: 'nobody', status: 303, location: '/login' },
  {
    name: 'a user has no Webhooks link',
    path: '/',
    as: 'user',
    status: 200,
    notContains: ['href="/webhooks"'],
  },
  {
    ...add({ url: 'https://hooks.example.com/in', event: 'device.enrolled', description: 'provisioning' }),
    name: 'adding an endpoint shows its secret once; audited without it',
    status: 200,
    events: ['webhook.created'],
    contains: ['Webhook endpoint added', 'It is shown only now'],
    after: async (h, res, body) => {
      await secretShownOnce(h, res, body);
      const [made] = await h.store.webhooks(10);
      assert.deepEqual(
        [made?.url, made?.events, made?.description, made?.enabled],
        ['https://hooks.example.com/in', ['device.enrolled'], 'provisioning', true],
      );
      assert.ok(
        h.logs.some((r) => r.event === 'webhook.created' && r.account === 'local:admin' && r.webhook === made?.id),
      );
      const list = await (
        await h.request('/webhooks', { headers: { cookie: h.signIn(ACCOUNTS.admin).cookie } })
      ).text();
      assert.ok(!list.includes(secretOn(body) ?? 'x'), 'the list does not show the secret');
    },
  },
  {
    name: 'several events: the event field repeated, one per checked box',
    path: '/webhooks',
    as: 'admin',
    status: 200,
    after: async (h) => {
      const { cookie, csrf } = h.signIn(ACCOUNTS.admin);
      const body = `csrf=${csrf}&url=https%3A%2F%2Fa.example%2F&event=device.revoked&event=device.stale&event=*`;
      const heard = h.logs.length;
      const res = await h.request('/webhooks', {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      assert.equal(res.status, 200);
      assertEvents(h, heard, ['webhook.created']);
      assert.deepEqual((await h.store.webhooks(10))[0]?.events, ['device.revoked', 'device.stale', '*']);
    },
  },
  {
    ...add({ url: 'http://hooks.example.com/in', event: '*' }),
    name: 'an http:// target is refused, naming the field',
    status: 400,
    events: [],
    // docs/contract.md section 22: the page, the message beside the field.
    contains: ['<strong id="url-error">url is not a webhook target: the URL must be https://</strong>'],
    after: async (h) => assert.deepEqual(await h.store.webhooks(10), []),
  },
  {
    ...add({ url: 'https://10.1.2.3/in', event: '*' }),
    name: 'a private address is refused',
    status: 400,
    events: [],
    contains: ['url is not a webhook target: the URL&#39;s address is private'],
  },
  {
    ...add({ url: 'https://169.254.169.254/latest', event: '*' }),
    name: 'the metadata address is refused',
    status: 400,
    events: [],
    contains: ['the URL&#39;s address is link-local'],
  },
  {
    ...add({ url: 'not a url', event: '*' }),
    name: 'a URL that is not one is refused',
    status: 400,
    events: [],
    contains: ['url is not a webhook target: the URL is not an absolute URL'],
  },
  {
    ...add({ url: 'http://127.0.0.1:9/hook', event: 'webhook.test' }),
    name: 'with PADDOCK_WEBHOOK_ALLOW_PRIVATE, http:// and loopback are allowed (a lab)',
    harness: { config: { webhookAllowPrivate: true } },
    status: 200,
    events: ['webhook.created'],
    after: async (h) => assert.equal((await h.store.webhooks(10))[0]?.url, 'http://127.0.0.1:9/hook'),
  },
  {
    ...add({ url: 'https://hooks.example.com/in', event: 'device.exploded' }),
    name: 'an unknown event is refused, naming the field',
    status: 400,
    events: [],
    contains: ['event must name events webhooks carry'],
  },
  {
    ...add({ url: 'https://hooks.example.com/in', event: 'webhook.created' }),
    name: 'an event webhooks do not carry is refused',
    status: 400,
    events: [],
    contains: ['event must name events webhooks carry'],
  },
  {
    ...add({ url: 'https://hooks.example.com/in' }),
    name: 'no event at all is refused',
    status: 400,
    events: [],
    contains: ['event must name'],
  },
  {
    ...add({ url: 'https://hooks.example.com/in', event: '*', description: 'two\nlines' }),
    name: 'a description on two lines is refused',
    status: 400,
    events: [],
    contains: ['description is at most 200 characters on one line'],
  },
  {
    method: 'POST',
    path: '/webhooks',
    as: 'user',
    form: { csrf: '$csrf', url: 'https://hooks.example.com/in', event: '*' },
    name: 'a user may not add an endpoint',
    status: 403,
    events: ['access.admin_refused'],
    after: async (h) => assert.deepEqual(await h.store.webhooks(10), []),
  },
  {
    ...add({ url: 'https://hooks.example.com/in', event: '*' }),
    form: { csrf: 'forged', url: 'https://hooks.example.com/in', event: '*' },
    name: 'a forged csrf adds nothing',
    status: 403,
    events: [],
    after: async (h) => assert.deepEqual(await h.store.webhooks(10), []),
  },
  {
    name: "an endpoint's page: what it is, its actions, its attempts with a redeliver button",
    path: (_h, f) => `/webhooks/${f.id}`,
    as: 'admin',
    setup: oneEndpoint,
    status: 200,
    events: [],
    contains: [
      'https://hooks.example.com/paddock?x=%3Cb%3E',
      'Send a test message',
      '>Disable</button>',
      'Replace the signing secret',
      /<td>webhook\.test<\/td>\s*<td><code>msg_[0-9a-f]{32}<\/code><\/td>/,
      /<td>500<\/td>\s*<td>42 ms<\/td>\s*<td>pending<\/td>/,
    ],
    notContains: ['whsec_', '>Enable</button>'],
    after: (_h, _r, body, f) => {
      assert.ok(body.includes(`action="/webhooks/${f.id}/deliveries/${f.delivery}/redeliver"`));
      assert.ok(body.includes(f.message ?? 'x'));
    },
  },
  {
    name: 'an unknown endpoint is 404',
    path: '/webhooks/wh_AAAAAAAAAAAAAAAA',
    as: 'admin',
    status: 404,
    events: [],
    contains: ['webhook endpoint not found\n'],
  },
  {
    name: 'an id outside the grammar is 404, and not echoed',
    path: '/webhooks/%3Cscript%3E',
    as: 'admin',
    status: 404,
    notContains: ['<script'],
  },
  {
    name: 'a test message is queued: 303 to the page, audited, and the page says so once',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/test`,
    as: 'admin',
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 303,
    location: /^\/webhooks\/wh_[A-Za-z0-9_-]{16}$/,
    events: ['webhook.test'],
    after: async (h, res, _b, f) => {
      assert.equal((await h.store.outboxDepth()).pending, 2);
      const notice = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const page = await (
        await h.request(`/webhooks/${f.id}`, { headers: { cookie: `${h.signIn(ACCOUNTS.admin).cookie}; ${notice}` } })
      ).text();
      assert.ok(page.includes(`<p role="status"><strong>A test message for webhook ${f.id} was queued.</strong></p>`));
    },
  },
  {
    name: 'disabling: 303, audited, and the deliveries wait',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/disable`,
    as: 'admin',
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 303,
    events: ['webhook.disabled'],
    logs: [{ event: 'webhook.disabled', account: 'local:admin' }],
    after: async (h, _r, _b, f) => {
      assert.equal((await h.store.webhook(f.id ?? ''))?.enabled, false);
      h.clock.advance(120_000);
      assert.deepEqual(await h.store.claimDeliveries(h.clock.now(), 10, CLAIM_MS), []);
    },
  },
  {
    name: 'disabling a disabled endpoint changes nothing and emits nothing',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/disable`,
    as: 'admin',
    setup: async (h) => {
      const f = await oneEndpoint(h);
      await h.store.disableWebhook(f.id ?? '');
      return f;
    },
    form: { csrf: '$csrf' },
    status: 303,
    events: [],
  },
  {
    name: 'enabling a disabled endpoint: audited, failures start again from zero',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/enable`,
    as: 'admin',
    setup: async (h) => {
      const f = await oneEndpoint(h);
      await h.store.disableWebhook(f.id ?? '');
      return f;
    },
    form: { csrf: '$csrf' },
    status: 303,
    events: ['webhook.enabled'],
    after: async (h, _r, _b, f) => {
      const w = await h.store.webhook(f.id ?? '');
      assert.deepEqual([w?.enabled, w?.failures], [true, 0]);
    },
  },
  {
    name: 'deleting: 303 to /webhooks, audited, gone with its deliveries',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/delete`,
    as: 'admin',
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 303,
    location: /^\/webhooks$/,
    events: ['webhook.deleted'],
    after: async (h, _r, _b, f) => {
      assert.equal(await h.store.webhook(f.id ?? ''), undefined);
      assert.deepEqual(await h.store.webhookAttempts(f.id ?? '', 10), []);
      assert.ok(await h.store.webhook(f.other ?? ''), 'the other endpoint stays');
    },
  },
  {
    name: 'rotating the secret shows the new one once; audited without it',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/rotate-secret`,
    as: 'admin',
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 200,
    events: ['webhook.secret_rotated'],
    contains: ['Signing secret replaced', 'for 24 hours'],
    after: async (h, res, body, f) => {
      await secretShownOnce(h, res, body);
      assert.equal((await h.store.webhook(f.id ?? ''))?.rotatedAt, h.clock.now());
    },
  },
  {
    name: 'redelivering: the same message is due again, audited with its id',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/deliveries/${f.delivery}/redeliver`,
    as: 'admin',
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 303,
    location: /^\/webhooks\/wh_/,
    events: ['webhook.redelivered'],
    after: async (h, _r, _b, f) => {
      assert.ok(h.logs.some((r) => r.event === 'webhook.redelivered' && r.message === f.message));
      const [again] = await h.store.claimDeliveries(h.clock.now(), 10, CLAIM_MS);
      assert.deepEqual([again?.message, again?.attempt], [f.message, 1]);
    },
  },
  {
    name: "another endpoint's delivery is 404",
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.other}/deliveries/${f.delivery}/redeliver`,
    as: 'admin',
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
    contains: ['delivery not found'],
  },
  {
    name: 'a delivery that is not a number is 404',
    method: 'POST',
    path: (_h, f) => `/webhooks/${f.id}/deliveries/0x1/redeliver`,
    as: 'admin',
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
  },
  ...(['test', 'disable', 'enable', 'delete', 'rotate-secret'] as const).map((action) => ({
    name: `${action} of an unknown endpoint is 404 and emits nothing`,
    method: 'POST',
    path: `/webhooks/wh_AAAAAAAAAAAAAAAA/${action}`,
    as: 'admin' as const,
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
    contains: ['webhook endpoint not found'],
  })),
  ...(['test', 'disable', 'enable', 'delete', 'rotate-secret'] as const).map((action) => ({
    name: `${action} by a user is 403, logged, and changes nothing`,
    method: 'POST',
    path: (_h: Harness, f: Record<string, string>) => `/webhooks/${f.id}/${action}`,
    as: 'user' as const,
    setup: oneEndpoint,
    form: { csrf: '$csrf' },
    status: 403,
    events: ['access.admin_refused' as const],
    after: async (h: Harness, _r: Response, _b: string, f: Record<string, string>) =>
      assert.equal((await h.store.webhook(f.id ?? ''))?.enabled, true),
  })),
]);
