// The scim scope (docs/contract.md section 20): /scim/v2 takes a scim token of an administrator
// and nothing else (no token, a write or read token, a session cookie: 401 with
// `WWW-Authenticate: Bearer`; a non-administrator's: 403), and a scim token works nowhere else
// (the JSON API answers 403 insufficient_scope). Only an administrator can make one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scimRoutes } from '../../src/scim/routes.ts';
import { consoleAccessToken } from '../support/harness.ts';
import { ADMIN, assertScimError, scimClient } from './client.ts';

const USER = { subject: 'oidc:user-1', display: 'Uma', admin: false };

test('/scim/v2 accepts a scim token of an administrator, and no other credential', async () => {
  const s = await scimClient();
  try {
    const write = (await consoleAccessToken(s.h, ADMIN, { scope: 'write', name: 'writer' })).value;
    const read = (await consoleAccessToken(s.h, ADMIN, { scope: 'read', name: 'reader' })).value;
    const { cookie } = s.h.signIn(ADMIN);
    for (const route of scimRoutes) {
      const path = route.path.replace(':id', '00000000-0000-4000-8000-000000000000');
      for (const headers of [
        {},
        { authorization: `Bearer ${write}` },
        { authorization: `Bearer ${read}` },
        { authorization: 'Bearer pdk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
        { cookie },
      ]) {
        const res = await s.h.request(path, { method: route.method, headers });
        const what = `${route.method} ${route.path} ${Object.keys(headers).join()}`;
        assert.equal(res.status, 401, what);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer', what);
        assert.equal(res.headers.get('content-type'), 'application/scim+json', what);
      }
    }
    const config = await s.send('GET', '/ServiceProviderConfig');
    assert.equal(config.status, 200);
    assert.equal((config.body.patch as { supported: boolean }).supported, true);
    assert.equal((await s.send('GET', '/ResourceTypes')).body.totalResults, 2);
    const schemas = await s.send('GET', '/Schemas');
    assert.equal(schemas.body.totalResults, 3);
  } finally {
    await s.close();
  }
});

test('a scim token works only under /scim/v2, and only an administrator makes one', async () => {
  const s = await scimClient();
  try {
    const api = await s.h.request('/api/v1/devices', { headers: { authorization: `Bearer ${s.token}` } });
    assert.equal(api.status, 403);
    assert.equal(api.headers.get('www-authenticate'), 'Bearer error="insufficient_scope"');
    assert.match(((await api.json()) as { detail: string }).detail, /scim scope/);
    assert.ok(s.h.logs.some((r) => r.event === 'access.scope_refused' && r.scope === 'scim'));
    // A non-administrator cannot make one, by the console or the API.
    await assert.rejects(consoleAccessToken(s.h, USER, { scope: 'scim' }), /no access token/);
    const own = (await consoleAccessToken(s.h, USER, { scope: 'write', name: 'mine' })).value;
    const minted = await s.h.request('/api/v1/tokens', {
      method: 'POST',
      headers: { authorization: `Bearer ${own}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'scim', scope: 'scim' }),
    });
    assert.equal(minted.status, 403);
    // An administrator's API mints one, shown once.
    const admin = (await consoleAccessToken(s.h, ADMIN, { scope: 'write', name: 'api' })).value;
    const made = await s.h.request('/api/v1/tokens', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'entra', scope: 'scim' }),
    });
    assert.equal(made.status, 201);
    const { value, token } = (await made.json()) as { value: string; token: { scope: string } };
    assert.equal(token.scope, 'scim');
    assert.equal((await s.send('GET', '/Users', undefined, value)).status, 200);
  } finally {
    await s.close();
  }
});

test('a scim token of an account that is no longer an administrator is refused with 403', async () => {
  const s = await scimClient();
  try {
    const oidcAdmin = { subject: 'oidc:admin-2', display: 'Ad', admin: true };
    const token = (await consoleAccessToken(s.h, oidcAdmin, { scope: 'scim', name: 'x' })).value;
    assert.equal((await s.send('GET', '/Users', undefined, token)).status, 200);
    // Its next sign-in no longer gives the admin flag (docs/contract.md section 14).
    await s.h.store.recordSignIn({ ...oidcAdmin, admin: false, lastSignInAt: s.h.clock.now() });
    assertScimError(await s.send('GET', '/Users', undefined, token), 403);
  } finally {
    await s.close();
  }
});
