// docs/contract.md section 5, "headers on every response": the four security headers come back exactly
// on every status the interface produces (redirects, client errors, store failures, pages), and
// every page that shows account data also carries Cache-Control: no-store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreError } from '../../src/store/errors.ts';
import { ADMIN_PASSWORD, enrollDevice, harness, upload } from '../support/harness.ts';
import { runScenarios, type Scenario } from '../support/scenario.ts';

const SECURITY = {
  'content-security-policy': /^default-src 'none'$/,
  'x-content-type-options': /^nosniff$/,
  'x-frame-options': /^DENY$/,
  'referrer-policy': /^no-referrer$/,
};
const NO_STORE = { ...SECURITY, 'cache-control': /^no-store$/ };

/** Makes one store method fail the way a lost database does. */
function failing(method: 'devicesVisibleTo' | 'passwordHash', error: Error) {
  return (h: { store: object }) => {
    Object.assign(h.store, {
      [method]: async () => {
        throw error;
      },
    });
  };
}

type Row = Omit<Scenario, 'headersMatch'> & { headersMatch?: Scenario['headersMatch'] };

const rows: Row[] = [
  { name: '303: a guarded page without a session', path: '/', status: 303, location: '/login' },
  { name: '303: HEAD of a guarded page without a session', method: 'HEAD', path: '/devices', status: 303 },
  {
    name: '303: a successful POST /login',
    method: 'POST',
    path: '/login',
    form: { username: 'admin', password: ADMIN_PASSWORD },
    status: 303,
    events: ['login.local.succeeded'],
    location: '/',
  },
  {
    name: '303: POST /logout',
    method: 'POST',
    path: '/logout',
    as: 'admin',
    status: 303,
    location: '/login',
  },
  {
    name: '400: POST /login with a JSON body',
    method: 'POST',
    path: '/login',
    headers: { 'content-type': 'application/json' },
    body: '{"username":"admin","password":"x"}',
    status: 400,
  },
  {
    name: '400: POST /login with a bad percent escape',
    method: 'POST',
    path: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=admin&password=%G1',
    status: 400,
  },
  {
    name: '401: a failed local sign-in',
    method: 'POST',
    path: '/login',
    form: { username: 'admin', password: 'not the password' },
    status: 401,
    events: ['login.local.failed'],
  },
  {
    name: '403: a revoke without csrf by a signed-in admin',
    method: 'POST',
    path: '/devices/x/revoke',
    as: 'admin',
    form: { other: 'field' },
    status: 403,
    events: [],
  },
  {
    name: '403: an admin-only action refused to a non-admin',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'user',
    form: { csrf: '$csrf' },
    status: 403,
    events: ['access.admin_refused'],
    logs: [{ event: 'access.admin_refused', account: 'oidc:user-1', path: '/enroll-tokens' }],
  },
  { name: '404: an unknown path', path: '/no/such/page', status: 404 },
  { name: '404: a run outside the account scope', path: '/runs/nodevice/norun', as: 'user', status: 404 },
  {
    name: '405: a known path with a wrong method',
    path: '/enroll-tokens/t_sample/revoke',
    status: 405,
    headersMatch: { ...SECURITY, allow: /^POST$/ },
  },
  { name: '405: DELETE /login', method: 'DELETE', path: '/login', status: 405 },
  {
    name: '413: a form above 64 KiB on a guarded POST',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', owner: 'x'.repeat(70_000) },
    status: 413,
  },
  { name: '501: /auth/start without OIDC', path: '/auth/start', status: 501 },
  { name: '501: /admin/callback without OIDC', path: '/admin/callback?state=a&code=b', status: 501 },
  {
    name: '503: a page whose store query fails with a StoreError',
    path: '/devices',
    as: 'admin',
    setup: async (h) => failing('devicesVisibleTo', new StoreError('unavailable', 'connection lost'))(h),
    status: 503,
    events: ['store.unavailable'],
    logs: [{ event: 'store.unavailable', path: '/devices' }],
  },
  {
    name: '503: a sign-in whose store query fails with a StoreError',
    method: 'POST',
    path: '/login',
    form: { username: 'admin', password: ADMIN_PASSWORD },
    setup: async (h) => failing('passwordHash', new StoreError('unavailable', 'connection lost'))(h),
    status: 503,
  },
  {
    name: '500: an unexpected failure still carries the headers, and no stack trace',
    path: '/devices',
    as: 'admin',
    setup: async (h) => failing('devicesVisibleTo', new Error('boom'))(h),
    status: 500,
    events: ['request.failed'],
    notContains: ['boom', '.ts:'],
  },
  { name: '200: GET /login', path: '/login', status: 200 },
  { name: '200: GET /healthz', path: '/healthz', status: 200 },
  { name: '200: GET /v1/discover', path: '/v1/discover', status: 200 },
];

runScenarios(
  'headers on every answer',
  rows.map((r) => ({ ...r, headersMatch: r.headersMatch ?? SECURITY })),
);

// Pages that show account data: the signed-in pages and the one-time mint result.
runScenarios('Cache-Control: no-store on account pages', [
  { name: 'dashboard', path: '/', as: 'admin', status: 200, headersMatch: NO_STORE },
  { name: 'device list', path: '/devices', as: 'user', status: 200, headersMatch: NO_STORE },
  { name: 'run list', path: '/runs', as: 'admin', status: 200, headersMatch: NO_STORE },
  {
    name: 'run view',
    path: (_h, f) => `/runs/${f.device}/r1`,
    as: 'admin',
    setup: async (h) => {
      const { device, credential } = await enrollDevice(h, 'local:admin');
      assert.equal((await upload(h, credential, 'r1', 'temp=21')).status, 201);
      return { device };
    },
    status: 200,
    contains: ['temp=21'],
    headersMatch: NO_STORE,
  },
  {
    name: 'enrollment link shown once after minting',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf' },
    status: 200,
    contains: ['paddock://enroll?'],
    headersMatch: NO_STORE,
  },
]);

test('a signed-in session keeps the headers through a whole sign-in, page, action and sign-out', async () => {
  const h = await harness();
  try {
    const login = await h.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: ADMIN_PASSWORD }).toString(),
    });
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const dash = await h.request('/', { headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(await dash.text())?.[1] ?? '';
    const revoke = await h.request('/devices/nothing/revoke', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${csrf}`,
    });
    const out = await h.request('/logout', { method: 'POST', headers: { cookie } });
    const answers = [login, dash, revoke, out];
    assert.deepEqual(
      answers.map((r) => r.status),
      [303, 200, 404, 303],
    );
    for (const res of answers)
      for (const [name, want] of Object.entries(SECURITY))
        assert.match(res.headers.get(name) ?? '', want, `${name} on ${res.status}`);
  } finally {
    await h.close();
  }
});
