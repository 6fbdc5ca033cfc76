// A SCIM user meets its OIDC sign-in (docs/contract.md section 20), through the whole flow with the
// fake provider: the account whose preferred_username (PADDOCK_SCIM_USER_CLAIM) equals a userName
// in any case is linked to that user, its groups are its SCIM groups (not the claim's), until then
// the user is provisioned and not signed in; an inactive user's sign-in is refused; with
// PADDOCK_SCIM_REQUIRED a sign-in that matches no active user is refused (403,
// login.oidc.token_rejected), and a userName linked to another account takes nothing over.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InterfaceConfig } from '../../src/context/deps.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import type { Harness } from '../support/harness.ts';
import { ADMIN, scimClient, type ScimClient } from './client.ts';

const clock = fakeClock();
let provider: FakeProvider;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

async function client(config: Partial<InterfaceConfig> = {}): Promise<ScimClient> {
  return scimClient(undefined, {
    clock,
    oidc: clientFor(provider, clock),
    config: { clientId: provider.clientId, clientSecret: provider.clientSecret, ...config },
  });
}

/** Signs in through /auth/start and the callback with these claims: the answer. */
async function signIn(h: Harness, claims: Record<string, unknown>): Promise<Response> {
  const start = await h.request('/auth/start');
  const oidcCookie = (start.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const url = new URL(start.headers.get('location') ?? '');
  const code = provider.issueCode({ claims, codeChallenge: url.searchParams.get('code_challenge') ?? '' });
  const query = new URLSearchParams({ state: url.searchParams.get('state') ?? '', code });
  return h.request(`/admin/callback?${query}`, { headers: { cookie: oidcCookie } });
}

test('the sign-in whose claim equals a userName is that user: linked, with its SCIM groups', async () => {
  const s = await client();
  try {
    const user = await s.send('POST', '/Users', { userName: 'Ada@Example.com', displayName: 'Ada' });
    const id = user.body.id as string;
    await s.send('POST', '/Groups', { displayName: 'ops', members: [{ value: id }] });
    assert.deepEqual(
      (await s.h.store.unlinkedScimUsers(10)).items.map((u) => u.id),
      [id],
      'provisioned, not signed in',
    );
    const admin = s.h.signIn(ADMIN);
    const accounts = async () => (await s.h.request('/accounts', { headers: { cookie: admin.cookie } })).text();
    assert.match(await accounts(), /Provisioned, not signed in \(1\)[\s\S]*Ada@Example\.com/);
    const res = await signIn(s.h, { sub: 'ada-sub', preferred_username: 'ada@example.com', groups: ['from-claim'] });
    assert.equal(res.status, 303, await res.clone().text());
    assert.equal((await s.h.store.scimUser(id))?.subject, 'oidc:ada-sub');
    assert.deepEqual(await s.h.store.accountGroups('oidc:ada-sub'), ['ops'], 'its SCIM groups, not the claim');
    assert.deepEqual((await s.h.store.unlinkedScimUsers(10)).items, []);
    assert.doesNotMatch(await accounts(), /Provisioned, not signed in/);
    assert.ok(s.h.logs.some((r) => r.event === 'scim.user_linked' && r.account === 'oidc:ada-sub'));
    // A group change reaches the account at once.
    await s.send('POST', '/Groups', { displayName: 'dev', members: [{ value: id }] });
    assert.deepEqual(await s.h.store.accountGroups('oidc:ada-sub'), ['dev', 'ops']);
    // Another account presenting the same userName takes nothing over.
    const other = await signIn(s.h, { sub: 'mallory', preferred_username: 'ADA@example.com', groups: ['x'] });
    assert.equal(other.status, 303);
    assert.equal((await s.h.store.scimUser(id))?.subject, 'oidc:ada-sub');
    assert.deepEqual(await s.h.store.accountGroups('oidc:mallory'), ['x']);
    // Deactivated: the next sign-in is refused.
    await s.send('PATCH', `/Users/${id}`, { Operations: [{ op: 'replace', value: { active: false } }] });
    const refused = await signIn(s.h, { sub: 'ada-sub', preferred_username: 'ada@example.com' });
    assert.equal(refused.status, 403);
  } finally {
    await s.close();
  }
});

test('PADDOCK_SCIM_REQUIRED: a sign-in that matches no active SCIM user is refused, 403, logged', async () => {
  const s = await client({ scimRequired: true, scimUserClaim: 'email' });
  try {
    const stranger = await signIn(s.h, { sub: 'stranger', email: 'who@example.com' });
    assert.equal(stranger.status, 403);
    assert.ok(s.h.logs.some((r) => r.event === 'login.oidc.token_rejected'));
    assert.equal(await s.h.store.accountState('oidc:stranger'), undefined, 'no account is made');
    await s.send('POST', '/Users', { userName: 'who@example.com', active: false });
    assert.equal((await signIn(s.h, { sub: 'stranger', email: 'who@example.com' })).status, 403, 'inactive');
    const [u] = (await s.h.store.scimUsers({ userName: 'who@example.com' }, { offset: 0, count: 1 })).items;
    await s.send('PATCH', `/Users/${u?.id}`, { Operations: [{ op: 'Replace', path: 'active', value: 'True' }] });
    assert.equal((await signIn(s.h, { sub: 'stranger', email: 'who@example.com' })).status, 303, 'active: in');
  } finally {
    await s.close();
  }
});
