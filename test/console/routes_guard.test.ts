// Generated from the admin host's routes table (host/interface.ts): every row is checked against its
// access rule, so a page added with one row is guarded (or deliberately not) without a test of its
// own for that.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiRoutes } from '../../src/api/routes.ts';
import { scimRoutes } from '../../src/scim/routes.ts';
import { consoleRoutes } from '../../src/console/routes.ts';
import { interfaceRoutes } from '../../src/host/interface.ts';
import { serviceRoutes } from '../../src/service/routes.ts';
import { form, harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

/**
 * The routes the specification lets through without a session (Authentication, item 8; Endpoints),
 * and back-channel logout, which the provider's signed token authorizes (docs/contract.md section 17).
 */
const UNAUTHENTICATED = [
  'GET /healthz',
  'GET /v1/discover',
  'GET /login',
  'POST /login',
  'GET /auth/start',
  'GET /admin/callback',
  'POST /logout',
  'POST /oidc/backchannel-logout',
];

/** A concrete path for a row: each `:name` segment becomes a well-formed sample id. */
function samplePath(path: string): string {
  return path.replace(/:device\b/g, 'd_sample').replace(/:[a-z]+/g, 'sample-1');
}

const label = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

test('routes: the rows without access control are exactly the specification list', () => {
  const open = interfaceRoutes.filter((r) => r.access === 'none').map(label);
  assert.deepEqual([...open].sort(), [...UNAUTHENTICATED].sort());
});

test('routes: no method and path appear twice', () => {
  const labels = interfaceRoutes.map(label);
  assert.equal(new Set(labels).size, labels.length);
});

test('routes: the rows checked by a bearer token of their own are /metrics, the API and SCIM (docs/contract.md sections 11 and 20)', () => {
  assert.deepEqual(
    interfaceRoutes.filter((r) => r.access === 'token').map(label),
    interfaceRoutes
      .filter((r) => r.path === '/metrics' || r.path.startsWith('/api/v1/') || r.path.startsWith('/scim/v2/'))
      .map(label),
  );
  assert.ok(interfaceRoutes.every((r) => !r.path.startsWith('/api/') || r.access === 'token'));
  assert.ok(interfaceRoutes.every((r) => !r.path.startsWith('/scim/') || r.access === 'token'));
});

test('routes: the admin host serves the service, API, SCIM and console tables, and only console rows are guarded', () => {
  assert.deepEqual(
    interfaceRoutes.map(label),
    [...serviceRoutes, ...apiRoutes, ...scimRoutes, ...consoleRoutes].map(label),
  );
  assert.deepEqual(
    interfaceRoutes.filter((r) => r.access === 'guarded' || r.access === 'admin').map(label),
    consoleRoutes.filter((r) => r.access !== 'none').map(label),
  );
  assert.ok(apiRoutes.every((r) => r.path.startsWith('/api/v1/')));
  assert.ok(scimRoutes.every((r) => r.path.startsWith('/scim/v2/')));
  assert.ok(
    consoleRoutes.every((r) => !r.path.startsWith('/api/') && !r.path.startsWith('/scim/') && r.path !== '/metrics'),
  );
});

for (const route of interfaceRoutes.filter((r) => r.access !== 'none' && r.access !== 'token')) {
  const path = samplePath(route.path);

  test(`routes: ${label(route)} without a session → 303 /login`, async () => {
    const h = await harness();
    try {
      const init = route.method === 'GET' ? {} : form({ csrf: 'x' });
      const res = await h.request(path, init);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/login');
    } finally {
      await h.close();
    }
  });

  if (route.method !== 'GET') {
    test(`routes: ${label(route)} with a bad csrf → 403 before any other check`, async () => {
      const h = await harness();
      try {
        // A non-admin with a bad token: the CSRF check comes first, so no admin refusal is logged.
        const { cookie } = h.signIn(ACCOUNTS.user);
        const res = await h.request(path, form({ csrf: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, cookie));
        assert.equal(res.status, 403);
        assert.match(await res.text(), /^stale form/);
        assert.equal(
          h.logs.some((r) => r.event === 'access.admin_refused'),
          false,
        );
      } finally {
        await h.close();
      }
    });
  }

  if (route.access === 'admin') {
    test(`routes: ${label(route)} by a non-admin → 403, logged as access.admin_refused`, async () => {
      const h = await harness();
      try {
        const { cookie, csrf } = h.signIn(ACCOUNTS.user);
        const init = route.method === 'GET' ? { headers: { cookie } } : form({ csrf }, cookie);
        const res = await h.request(path, init);
        assert.equal(res.status, 403);
        assert.match(await res.text(), /administrator/);
        const refusal = h.logs.find((r) => r.event === 'access.admin_refused');
        assert.deepEqual({ account: refusal?.account, path: refusal?.path }, { account: ACCOUNTS.user.subject, path });
      } finally {
        await h.close();
      }
    });
  }
}
