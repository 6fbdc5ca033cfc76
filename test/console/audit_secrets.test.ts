// The audit trail holds no secret (docs/contract.md sections 8 and 9): after a scripted session that signs
// in, mints, enrolls, uploads, deletes, revokes and signs out, the whole table, read back through
// the store, holds none of the secrets that session used, and holds each audited action.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secretHash } from '../../src/crypto/random.ts';
import { ADMIN_PASSWORD, form, harness, upload } from '../support/harness.ts';

test('no audit row holds the password, cookie, csrf token, enrollment token or link, or credential', async () => {
  const h = await harness();
  try {
    const failed = await h.request('/login', form({ username: 'admin', password: `${ADMIN_PASSWORD}!` }));
    assert.equal(failed.status, 401);
    const login = await h.request('/login', form({ username: 'admin', password: ADMIN_PASSWORD }));
    assert.equal(login.status, 303);
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const cookieValue = cookie.slice(cookie.indexOf('=') + 1);
    const dashboard = await (await h.request('/', { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(dashboard)?.[1] ?? '';
    assert.ok(cookieValue.length > 20 && csrf.length > 20);

    const minted = await (await h.request('/enroll-tokens', form({ csrf, owner: 'oidc:user-1' }, cookie))).text();
    const link = /(paddock:\/\/enroll\?[^<"\s]+)/.exec(minted)?.[1]?.replaceAll('&amp;', '&') ?? '';
    const token = /token=([A-Za-z0-9_-]{43})/.exec(link)?.[1] ?? '';
    assert.ok(token, 'the mint page shows the link');
    const enrolled = await h.control('/v1/enroll', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: 'audited' }),
    });
    const { device, credential } = (await enrolled.json()) as { device: string; credential: string };
    assert.equal((await upload(h, credential, 'run-1', 'hello')).status, 201);
    assert.equal((await upload(h, credential, 'run-2', 'world')).status, 201);
    const del = await h.request(`/runs/${device}/run-1/delete`, form({ csrf }, cookie));
    assert.equal(del.status, 303);
    const revoke = await h.request(`/devices/${device}/revoke`, form({ csrf }, cookie));
    assert.equal(revoke.status, 303);
    const user = h.signIn({ subject: 'oidc:user-1', admin: false });
    assert.equal((await h.request('/audit', { headers: { cookie: user.cookie } })).status, 403);
    assert.equal((await h.request('/logout', form({ csrf }, cookie))).status, 303);
    await h.flushAudit();

    const rows: unknown[] = [];
    for await (const batch of h.store.auditBatches({}, 100)) rows.push(...batch);
    const table = JSON.stringify(rows);
    const secrets = {
      password: ADMIN_PASSWORD,
      cookie: cookieValue,
      csrf,
      token,
      link,
      'token hash': secretHash(token),
      credential,
      'credential hash': secretHash(credential),
    };
    for (const [name, secret] of Object.entries(secrets)) assert.ok(!table.includes(secret), `no ${name} in the trail`);

    const events = (await h.store.auditPage({}, { limit: 50 })).items.map((r) => [r.event, r.account, r.client]);
    assert.deepEqual(events.reverse(), [
      ['login.local.failed', 'local:admin', '203.0.113.7'],
      ['login.local.succeeded', 'local:admin', '203.0.113.7'],
      ['enroll_token.minted', 'local:admin', '203.0.113.7'],
      // From the device's address (issue 23): the harness's control requests come from 198.51.100.9;
      // the device is its own actor (issue 45).
      ['device.enrolled', `device:${device}`, '198.51.100.9'],
      ['run.deleted', 'local:admin', '203.0.113.7'],
      ['device.revoked', 'local:admin', '203.0.113.7'],
      ['access.admin_refused', 'oidc:user-1', null],
    ]);
  } finally {
    await h.close();
  }
});
