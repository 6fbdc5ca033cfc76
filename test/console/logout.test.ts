// POST /logout: session → no session. The cookie is cleared, and the session itself ends, so a
// copy of its cookie (kept by an attacker, or by another tab) is refused from then on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { harness } from '../support/harness.ts';
import { sessionSeen } from '../../src/context/session_cookie.ts';

test('after sign-out a copy of the session cookie is no session; other sessions are untouched', async () => {
  const h = await harness();
  try {
    const ann = h.signIn({ subject: 'oidc:ann', admin: false });
    const bob = h.signIn({ subject: 'oidc:bob', admin: false });
    assert.equal((await h.request('/devices', { headers: { cookie: ann.cookie } })).status, 200);

    const out = await h.request('/logout', { method: 'POST', headers: { cookie: ann.cookie } });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get('location'), '/login');
    assert.match(out.headers.getSetCookie()[0] ?? '', /^service_admin=; Path=\/; Max-Age=-1; HttpOnly; SameSite=Lax$/);

    const replayed = await h.request('/devices', { headers: { cookie: ann.cookie } });
    assert.equal(replayed.status, 303);
    assert.equal(replayed.headers.get('location'), '/login');
    const post = await h.request('/runs/d_x/r/delete', {
      method: 'POST',
      headers: { cookie: ann.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${ann.csrf}`,
    });
    assert.equal(post.status, 303, 'a state-changing request with the old cookie and its csrf is turned away too');
    assert.equal(post.headers.get('location'), '/login');

    assert.equal((await h.request('/devices', { headers: { cookie: bob.cookie } })).status, 200);
    const state = (who: typeof ann) =>
      h.store.seeSession({ ...sessionSeen(who.session, '203.0.113.7', undefined) }, h.clock.now());
    assert.equal(await state(ann), 'ended');
    assert.equal(await state(bob), 'live');
  } finally {
    await h.close();
  }
});

test('sign-out without a session, or with a store that is away, still clears the cookie and answers 303', async () => {
  const h = await harness();
  try {
    const bare = await h.request('/logout', { method: 'POST' });
    assert.equal(bare.status, 303);
    const ann = h.signIn({ subject: 'oidc:ann', admin: false });
    h.store.endSession = async () => {
      throw new Error('database away');
    };
    const out = await h.request('/logout', { method: 'POST', headers: { cookie: ann.cookie } });
    assert.equal(out.status, 303);
    assert.match(out.headers.getSetCookie()[0] ?? '', /^service_admin=;/);
    assert.ok(h.logs.some((r) => r.event === 'server.error' && /sign-out not recorded/.test(String(r.error))));
  } finally {
    await h.close();
  }
});
