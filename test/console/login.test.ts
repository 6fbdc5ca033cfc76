// POST /login: break-glass sign-in, its failures, the throttle and the log records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { form, harness, ADMIN_PASSWORD } from '../support/harness.ts';
import { runScenarios } from '../support/scenario.ts';

runScenarios('POST /login', [
  {
    name: 'the right username and password: session cookie with exactly the specified attributes, 303 to /',
    method: 'POST',
    path: '/login',
    form: { username: 'admin', password: ADMIN_PASSWORD },
    client: '192.0.2.10',
    status: 303,
    events: ['login.local.succeeded'],
    location: /^\/$/,
    setCookies: [/^service_admin=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/],
    logs: [{ event: 'login.local.succeeded', user: 'admin', client: '192.0.2.10', method: 'local' }],
    after: async (h, res) => {
      const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const dash = await h.request('/', { headers: { cookie } });
      assert.equal(dash.status, 200);
      assert.match(await dash.text(), /Signed in as <strong>admin<\/strong> \(local:admin, administrator\)/);
      assert.ok(!JSON.stringify(h.logs).includes(ADMIN_PASSWORD), 'no password in any log record');
    },
  },
  {
    name: 'Secure is added to the session cookie when configured',
    method: 'POST',
    path: '/login',
    harness: { config: { secure: true } },
    form: { username: 'admin', password: ADMIN_PASSWORD },
    status: 303,
    events: ['login.local.succeeded'],
    setCookies: [/^service_admin=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/],
  },
  {
    name: 'a wrong password: 401, the login page again with the error, logged with user and client',
    method: 'POST',
    path: '/login',
    form: { username: 'admin', password: 'wrong password!' },
    client: '192.0.2.11',
    status: 401,
    events: ['login.local.failed'],
    headersMatch: { 'content-type': /^text\/html/ },
    contains: ['username or password is incorrect', 'name="password"'],
    notContains: ['wrong password!', '/auth/start'],
    setCookies: [],
    logs: [{ event: 'login.local.failed', user: 'admin', client: '192.0.2.11' }],
    after: (h) => assert.ok(!JSON.stringify(h.logs).includes('wrong password!')),
  },
  {
    name: 'X-Forwarded-For is ignored: the record names the remote address, and the throttle counts it',
    method: 'POST',
    path: '/login',
    form: { username: 'admin', password: 'wrong password!' },
    headers: { 'x-forwarded-for': '203.0.113.9', forwarded: 'for=203.0.113.9' },
    client: '192.0.2.12',
    status: 401,
    events: ['login.local.failed'],
    logs: [{ event: 'login.local.failed', user: 'admin', client: '192.0.2.12' }],
    after: async (h) => {
      assert.ok(!JSON.stringify(h.logs).includes('203.0.113.9'));
      assert.equal(await h.store.loginFailuresSince('192.0.2.12', h.clock.now() - 60_000), 1);
      assert.equal(await h.store.loginFailuresSince('203.0.113.9', h.clock.now() - 60_000), 0);
    },
  },
  {
    name: 'a wrong username answers exactly like a wrong password',
    method: 'POST',
    path: '/login',
    form: { username: 'root', password: ADMIN_PASSWORD },
    status: 401,
    events: ['login.local.failed'],
    contains: ['username or password is incorrect'],
    logs: [{ event: 'login.local.failed', user: 'root' }],
  },
  {
    name: 'no stored credential answers exactly like a wrong password and counts as a failure',
    method: 'POST',
    path: '/login',
    harness: { withPassword: false },
    form: { username: 'admin', password: ADMIN_PASSWORD },
    status: 401,
    events: ['login.local.failed'],
    contains: ['username or password is incorrect'],
    logs: [{ event: 'login.local.failed', user: 'admin' }],
    after: async (h) => assert.equal(await h.store.loginFailuresSince('203.0.113.7', 0), 1),
  },
  {
    name: 'the failure page offers OIDC when it is available',
    method: 'POST',
    path: '/login',
    harness: {
      oidc: {
        discover: async () => {
          throw new Error('unused');
        },
        exchange: async () => '',
        verify: async () => ({ sub: 'x' }),
        verifyLogoutToken: async () => {
          throw new Error('unused');
        },
      },
    },
    form: { username: 'admin', password: 'nope nope nope' },
    status: 401,
    events: ['login.local.failed'],
    contains: ['href="/auth/start"'],
  },
  {
    name: 'the username is escaped when the form is shown again',
    method: 'POST',
    path: '/login',
    form: { username: '<script>x</script>', password: 'x' },
    status: 401,
    events: ['login.local.failed'],
    contains: ['value="&lt;script&gt;x&lt;/script&gt;"'],
    notContains: ['<script>x'],
  },
  {
    name: 'a form without password → 400',
    method: 'POST',
    path: '/login',
    form: { username: 'admin' },
    status: 400,
    events: [],
    contains: ['bad form'],
  },
  {
    name: 'a bad percent escape → 400',
    method: 'POST',
    path: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=admin&password=%E0%A4%A',
    status: 400,
    events: [],
  },
  {
    name: 'a JSON body → 400',
    method: 'POST',
    path: '/login',
    headers: { 'content-type': 'application/json' },
    body: '{"username":"admin"}',
    status: 400,
    events: [],
  },
  {
    name: 'a repeated field → 400',
    method: 'POST',
    path: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=a&username=b&password=c',
    status: 400,
    events: [],
  },
  {
    name: 'a form above 64 KiB → 413',
    method: 'POST',
    path: '/login',
    form: { username: 'admin', password: 'x'.repeat(70_000) },
    status: 413,
    events: [],
  },
]);

test('the throttle delays the fourth failure from one address by 1 s, then 2 s; another address is not delayed; success resets', async () => {
  const h = await harness();
  try {
    const attempt = (password: string, client: string) =>
      h.request('/login', form({ username: 'admin', password }), client);
    for (let i = 0; i < 5; i++) assert.equal((await attempt('bad guess!!', '192.0.2.1')).status, 401);
    assert.deepEqual(h.clock.sleeps, [1000, 2000]);
    assert.equal((await attempt('bad guess!!', '192.0.2.2')).status, 401);
    assert.deepEqual(h.clock.sleeps, [1000, 2000]);
    assert.equal((await attempt(ADMIN_PASSWORD, '192.0.2.1')).status, 303);
    assert.deepEqual(h.clock.sleeps, [1000, 2000, 4000], 'the delay is slept before a successful answer too');
    assert.equal(await h.store.loginFailuresSince('192.0.2.1', 0), 0);
  } finally {
    await h.close();
  }
});
