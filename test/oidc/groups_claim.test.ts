// Admin through OIDC follows PADDOCK_OIDC_GROUPS_CLAIM and PADDOCK_OIDC_ADMIN_GROUP (CONTRACT
// section 3; specification, Authentication 4): membership is read from the configured claim only,
// and with no admin group configured nobody is admin through OIDC. A non-admin session is still
// a session, refused (403, logged with account and path) only at admin-only actions.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InterfaceConfig } from '../../src/context/deps.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { harness } from '../support/harness.ts';

const clock = fakeClock();
let provider: FakeProvider;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

interface Row {
  name: string;
  config: Partial<Pick<InterfaceConfig, 'groupsClaim' | 'adminGroup'>>;
  claims: Record<string, unknown>;
  admin: boolean;
}

const rows: Row[] = [
  {
    name: 'custom claim lists the admin group → admin',
    config: { groupsClaim: 'paddock_roles', adminGroup: 'paddock-admins' },
    claims: { paddock_roles: ['viewer', 'paddock-admins'], groups: ['staff'] },
    admin: true,
  },
  {
    name: 'custom claim with a URL-like name lists the admin group → admin',
    config: { groupsClaim: 'https://example.com/claims/groups', adminGroup: 'ops' },
    claims: { 'https://example.com/claims/groups': ['ops'] },
    admin: true,
  },
  {
    name: 'the group only under the default `groups` claim → not admin',
    config: { groupsClaim: 'paddock_roles', adminGroup: 'paddock-admins' },
    claims: { paddock_roles: ['viewer'], groups: ['paddock-admins'] },
    admin: false,
  },
  {
    name: 'the group only under `groups`, the custom claim absent → not admin',
    config: { groupsClaim: 'paddock_roles', adminGroup: 'paddock-admins' },
    claims: { groups: ['paddock-admins'] },
    admin: false,
  },
  {
    name: 'a group whose name merely contains the admin group → not admin',
    config: { groupsClaim: 'paddock_roles', adminGroup: 'paddock-admins' },
    claims: { paddock_roles: ['paddock-admins-readonly', 'not-paddock-admins'] },
    admin: false,
  },
  {
    name: 'no admin group configured: even a token listing every group → not admin',
    config: { groupsClaim: 'groups', adminGroup: undefined },
    claims: { groups: ['paddock-admins', 'admin', 'admins', ''], paddock_roles: ['paddock-admins'] },
    admin: false,
  },
  {
    name: 'no admin group configured, custom claim → not admin',
    config: { groupsClaim: 'paddock_roles', adminGroup: undefined },
    claims: { paddock_roles: ['paddock-admins', 'undefined'] },
    admin: false,
  },
];

for (const row of rows) {
  test(`groups claim: ${row.name}`, async () => {
    const h = await harness({
      clock,
      oidc: clientFor(provider, clock),
      config: { clientId: provider.clientId, clientSecret: provider.clientSecret, ...row.config },
    });
    try {
      // Sign in through the whole flow: /auth/start, the provider's code, the callback.
      const start = await h.request('/auth/start');
      assert.equal(start.status, 303);
      const oidcCookie = (start.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const url = new URL(start.headers.get('location') ?? '');
      const code = provider.issueCode({
        claims: { sub: 'grouped-1', ...row.claims },
        codeChallenge: url.searchParams.get('code_challenge') ?? '',
      });
      const query = new URLSearchParams({ state: url.searchParams.get('state') ?? '', code });
      const cb = await h.request(`/admin/callback?${query}`, { headers: { cookie: oidcCookie } }, '198.51.100.30');
      assert.equal(cb.status, 303, await cb.clone().text());
      const cookie = (cb.headers.getSetCookie().find((c) => c.startsWith('service_admin=')) ?? '').split(';')[0] ?? '';
      assert.ok(cookie, 'a session is created whatever the groups');
      assert.ok(
        h.logs.some(
          (r) => r.event === 'login.oidc.succeeded' && r.account === 'oidc:grouped-1' && r.admin === row.admin,
        ),
        JSON.stringify(h.logs),
      );

      // The session works for ordinary pages either way.
      const devices = await h.request('/devices', { headers: { cookie } });
      assert.equal(devices.status, 200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(await devices.text())?.[1] ?? '';
      assert.ok(csrf, 'the device page carries the csrf field');

      // The admin-only action decides by the Admin flag.
      const mint = await h.request('/enroll-tokens', {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf }).toString(),
      });
      const text = await mint.text();
      const refusals = h.logs.filter((r) => r.event === 'access.admin_refused');
      if (row.admin) {
        assert.equal(mint.status, 200, text);
        assert.match(text, /paddock:\/\/enroll\?/);
        assert.deepEqual(refusals, []);
      } else {
        assert.equal(mint.status, 403, text);
        assert.match(text, /administrator/);
        assert.equal(refusals.length, 1, JSON.stringify(h.logs));
        assert.equal(refusals[0]?.account, 'oidc:grouped-1');
        assert.equal(refusals[0]?.path, '/enroll-tokens');
        assert.equal(h.logs.filter((r) => r.event === 'enroll_token.minted').length, 0);
      }
    } finally {
      await h.close();
    }
  });
}
