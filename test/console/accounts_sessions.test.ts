// Sessions you can see and end, accounts you can take away, rights that follow the identity
// provider, read-only tokens (docs/contract.md section 14), on both stores. Sign-ins go through
// the real flows: POST /login for the break-glass account, and /auth/start → the fake OpenID
// provider → /admin/callback for OIDC accounts, whose groups the provider changes between sign-ins.
// Each step lists the exact events it emits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../../src/crypto/password.ts';
import type { Store } from '../../src/store/store.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { ADMIN_PASSWORD, form, harness, type Harness, shownAccessToken } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';
import { assertEvents } from '../support/scenario.ts';

const DAY = 86_400_000;
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const clock = fakeClock();
let provider: FakeProvider;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

interface Browser {
  cookie: string;
  csrf: string;
}

const cookieOf = (res: Response) =>
  (res.headers.getSetCookie().find((c) => c.startsWith('service_admin=')) ?? '').split(';')[0] ?? '';

async function csrfOf(h: Harness, cookie: string): Promise<string> {
  const page = await (await h.request('/tokens', { headers: { cookie } })).text();
  return /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
}

/** The break-glass sign-in, from `client` with `userAgent`. */
async function localSignIn(h: Harness, client: string, userAgent: string, username = 'admin'): Promise<Response> {
  const init = form({ username, password: ADMIN_PASSWORD });
  return h.request('/login', { ...init, headers: { ...init.headers, 'user-agent': userAgent } }, client);
}

/** The whole OIDC flow for `sub` with `groups`; the callback's answer. */
async function oidcSignIn(h: Harness, sub: string, groups: string[]): Promise<Response> {
  const start = await h.request('/auth/start');
  const oidcCookie = (start.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const url = new URL(start.headers.get('location') ?? '');
  const code = provider.issueCode({
    claims: { sub, name: sub, groups },
    codeChallenge: url.searchParams.get('code_challenge') ?? '',
  });
  const query = new URLSearchParams({ state: url.searchParams.get('state') ?? '', code });
  return h.request(
    `/admin/callback?${query}`,
    { headers: { cookie: oidcCookie, 'user-agent': FIREFOX } },
    '198.51.100.30',
  );
}

async function oidcBrowser(h: Harness, sub: string, groups: string[]): Promise<Browser> {
  const res = await oidcSignIn(h, sub, groups);
  assert.equal(res.status, 303, await res.clone().text());
  const cookie = cookieOf(res);
  return { cookie, csrf: await csrfOf(h, cookie) };
}

async function localBrowser(h: Harness, client: string, userAgent: string): Promise<Browser> {
  const res = await localSignIn(h, client, userAgent);
  assert.equal(res.status, 303);
  const cookie = cookieOf(res);
  return { cookie, csrf: await csrfOf(h, cookie) };
}

async function createToken(h: Harness, b: Browser, scope: 'read' | 'write'): Promise<string> {
  const page = await (
    await h.request(
      '/tokens',
      form({ csrf: b.csrf, name: `a ${scope} script`, scope, expires_in: '31536000' }, b.cookie),
    )
  ).text();
  const token = shownAccessToken(page);
  assert.ok(token, page);
  return token;
}

const api = (h: Harness, token: string, path: string, init: RequestInit = {}) =>
  h.request(path, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } }, '192.0.2.80');

/** The page a 303 leads to, with the notice cookie it set (shown once). */
async function follow(h: Harness, res: Response, cookie: string): Promise<string> {
  const notice = (res.headers.getSetCookie().find((c) => c.startsWith('service_notice=')) ?? '').split(';')[0] ?? '';
  const headers = { cookie: [cookie, notice].filter(Boolean).join('; ') };
  return (await h.request(res.headers.get('location') ?? '/', { headers })).text();
}

const status = async (h: Harness, path: string, b: Browser) =>
  (await h.request(path, { headers: { cookie: b.cookie } })).status;

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  const world = async () =>
    harness({
      store: await open(),
      clock,
      oidc: clientFor(provider, clock),
      config: { clientId: provider.clientId, clientSecret: provider.clientSecret, adminGroup: 'paddock-admins' },
    });

  describe(`sessions and accounts: ${name}`, { skip }, () => {
    test('the sessions page lists the account own sessions, marks this one, and ends one or all others at once', async () => {
      const h = await world();
      try {
        const laptop = await localBrowser(h, '192.0.2.10', FIREFOX);
        const phone = await localBrowser(h, '192.0.2.11', CHROME);
        const tablet = await localBrowser(h, '192.0.2.12', CHROME);
        const ann = await oidcBrowser(h, 'ann', []);

        const page = await (await h.request('/sessions', { headers: { cookie: laptop.cookie } })).text();
        assert.match(page, /Firefox 128 on Linux/);
        assert.match(page, /Chrome 131 on macOS/);
        assert.match(page, /192\.0\.2\.11/);
        assert.doesNotMatch(page, /198\.51\.100\.30/, "another account's session is not listed");
        assert.equal((page.match(/\(this session\)/g) ?? []).length, 1);
        const ends = [...page.matchAll(/action="\/sessions\/(s_[A-Za-z0-9_-]+)\/end"/g)].map((m) => m[1] ?? '');
        assert.equal(ends.length, 2, 'an end button for each other session, none for this one');

        // Ending the phone's session: refused at once, the others untouched.
        const phoneForm = page.split('<form').find((f) => f.includes('End the session from 192.0.2.11')) ?? '';
        const phoneId = /\/sessions\/(s_[A-Za-z0-9_-]+)\/end"/.exec(phoneForm)?.[1] ?? '';
        assert.ok(phoneId);
        let heard = h.logs.length;
        const end = await h.request(`/sessions/${phoneId}/end`, form({ csrf: laptop.csrf }, laptop.cookie));
        assertEvents(h, heard, ['session.ended']);
        assert.equal(end.status, 303);
        assert.equal(end.headers.get('location'), '/sessions');
        assert.equal(await status(h, '/devices', phone), 303, 'the ended session is refused');
        assert.equal(await status(h, '/devices', tablet), 200);
        assert.equal(await status(h, '/devices', laptop), 200);

        // Another account's session, or one already ended, is not found.
        const annPage = await (await h.request('/sessions', { headers: { cookie: ann.cookie } })).text();
        const annId = /(s_[A-Za-z0-9_-]+)/.exec(annPage)?.[1] ?? 'x';
        heard = h.logs.length;
        assert.equal(
          (await h.request(`/sessions/${annId}/end`, form({ csrf: laptop.csrf }, laptop.cookie))).status,
          404,
        );
        assert.equal(
          (await h.request(`/sessions/${phoneId}/end`, form({ csrf: laptop.csrf }, laptop.cookie))).status,
          404,
        );
        assert.equal(
          (await h.request('/sessions/not-an-id/end', form({ csrf: laptop.csrf }, laptop.cookie))).status,
          404,
        );
        assertEvents(h, heard, []);
        assert.equal(await status(h, '/devices', ann), 200);

        // End all others: the tablet goes, this one stays, and so does Ann's.
        heard = h.logs.length;
        const others = await h.request('/sessions/end-others', form({ csrf: laptop.csrf }, laptop.cookie));
        assertEvents(h, heard, ['session.others_ended']);
        assert.equal(h.logs.at(-1)?.sessions, 1);
        assert.equal(others.status, 303);
        assert.equal(await status(h, '/devices', tablet), 303);
        assert.equal(await status(h, '/devices', laptop), 200);
        assert.equal(await status(h, '/devices', ann), 200);
        const after = await follow(h, others, laptop.cookie);
        assert.match(after, /1 other session ended\./);
        assert.match(after, /You have no other sessions\./);

        await h.flushAudit();
        const audited = await h.store.auditPage({ event: 'session.ended' }, { limit: 5 });
        assert.deepEqual(
          audited.items.map((r) => [r.account, r.client]),
          [['local:admin', '203.0.113.7']],
        );
      } finally {
        await h.close();
      }
    });

    test('last seen is written at most once a minute, from the requests of the session', async () => {
      const h = await world();
      try {
        const b = await localBrowser(h, '192.0.2.10', FIREFOX);
        const started = clock.now();
        const lastSeen = async () => (await h.store.sessionsOf('local:admin', clock.now()))[0]?.lastSeenAt;
        clock.advance(59_000);
        assert.equal(await status(h, '/devices', b), 200);
        assert.equal(await lastSeen(), started, 'within the minute: not written');
        clock.advance(1_000);
        assert.equal(await status(h, '/devices', b), 200);
        assert.equal(await lastSeen(), started + 60_000);
      } finally {
        await h.close();
      }
    });

    test('disable ends the sessions, refuses the tokens and both sign-in methods; enable undoes it; all audited', async () => {
      const h = await world();
      try {
        const admin = await localBrowser(h, '192.0.2.10', FIREFOX);
        const bob = await oidcBrowser(h, 'bob', []);
        const bobToken = await createToken(h, bob, 'write');
        assert.equal((await api(h, bobToken, '/api/v1/devices')).status, 200);

        // The account page: its session, its token, a disable button.
        let page = await (await h.request('/accounts/oidc%3Abob', { headers: { cookie: admin.cookie } })).text();
        assert.match(page, /<h1>Account bob<\/h1>/);
        assert.match(page, /a write script/);
        assert.match(page, /198\.51\.100\.30/);
        assert.match(page, /action="\/accounts\/oidc%3Abob\/disable"/);

        // A user may not disable anyone (the guard's admin check).
        let heard = h.logs.length;
        const refused = await h.request('/accounts/oidc%3Abob/disable', form({ csrf: bob.csrf }, bob.cookie));
        assert.equal(refused.status, 403);
        assertEvents(h, heard, ['access.admin_refused']);

        heard = h.logs.length;
        const disabled = await h.request('/accounts/oidc%3Abob/disable', form({ csrf: admin.csrf }, admin.cookie));
        assertEvents(h, heard, ['account.disabled']);
        const record = h.logs.at(-1);
        assert.deepEqual(
          [record?.account, record?.client, record?.subject, record?.sessions],
          ['local:admin', '203.0.113.7', 'oidc:bob', 1],
        );
        assert.equal(disabled.status, 303);
        assert.equal(disabled.headers.get('location'), '/accounts/oidc%3Abob');
        page = await follow(h, disabled, admin.cookie);
        assert.match(page, /The account was disabled: 1 session ended/);
        assert.match(page, /action="\/accounts\/oidc%3Abob\/enable"/);

        // Its session, its token and its sign-in are refused.
        assert.equal(await status(h, '/devices', bob), 303);
        heard = h.logs.length;
        const viaToken = await api(h, bobToken, '/api/v1/devices');
        assert.equal(viaToken.status, 401);
        assert.match(((await viaToken.json()) as { detail: string }).detail, /disabled/);
        assertEvents(h, heard, ['access_token.refused']);
        heard = h.logs.length;
        const signIn = await oidcSignIn(h, 'bob', []);
        assert.equal(signIn.status, 403);
        assert.match(await signIn.text(), /this account is disabled/);
        assert.equal(cookieOf(signIn), '', 'no session');
        assertEvents(h, heard, ['login.refused_disabled']);

        // Disabling again changes nothing and records nothing.
        heard = h.logs.length;
        assert.equal(
          (await h.request('/accounts/oidc%3Abob/disable', form({ csrf: admin.csrf }, admin.cookie))).status,
          303,
        );
        assertEvents(h, heard, []);

        // Enable: the sign-in and the live token work again; the ended session stays ended.
        heard = h.logs.length;
        const enabled = await h.request('/accounts/oidc%3Abob/enable', form({ csrf: admin.csrf }, admin.cookie));
        assert.equal(enabled.status, 303);
        assertEvents(h, heard, ['account.enabled']);
        assert.equal(await status(h, '/devices', bob), 303);
        assert.equal((await api(h, bobToken, '/api/v1/devices')).status, 200);
        const again = await oidcBrowser(h, 'bob', []);
        assert.equal(await status(h, '/devices', again), 200);

        await h.flushAudit();
        for (const event of ['account.disabled', 'account.enabled', 'login.refused_disabled', 'access_token.refused']) {
          const stored = await h.store.auditPage({ event }, { limit: 5 });
          assert.equal(stored.items.length, 1, event);
        }
      } finally {
        await h.close();
      }
    });

    test('the break-glass account cannot be disabled; an unknown account is 404', async () => {
      const h = await world();
      try {
        const admin = await localBrowser(h, '192.0.2.10', FIREFOX);
        const page = await (await h.request('/accounts/local%3Aadmin', { headers: { cookie: admin.cookie } })).text();
        assert.match(page, /the break-glass account: it cannot be disabled/);
        assert.doesNotMatch(page, /\/disable"/);
        const heard = h.logs.length;
        const res = await h.request('/accounts/local%3Aadmin/disable', form({ csrf: admin.csrf }, admin.cookie));
        assert.equal(res.status, 409);
        assert.match(await res.text(), /break-glass account cannot be disabled/);
        assertEvents(h, heard, []);
        assert.equal(await status(h, '/devices', admin), 200);
        assert.equal(await status(h, '/accounts/oidc%3Anobody', admin), 404);
        assert.equal(
          (await h.request('/accounts/oidc%3Anobody/disable', form({ csrf: admin.csrf }, admin.cookie))).status,
          404,
        );
        // A subject with a slash, escaped in the path, is one account.
        await h.store.recordSignIn({ subject: 'oidc:a/b', display: 'Slash', lastSignInAt: clock.now(), admin: false });
        assert.equal(await status(h, '/accounts/oidc%3Aa%2Fb', admin), 200);
      } finally {
        await h.close();
      }
    });

    test('a break-glass sign-in of a disabled local account is refused too', async () => {
      // PADDOCK_ADMIN_USER was another name when `local:root` was disabled; now it is `root` again.
      const h = await harness({ store: await open(), clock, config: { adminUser: 'root' } });
      try {
        await h.store.setPasswordHash('root', await hashPassword(ADMIN_PASSWORD));
        await h.store.recordSignIn({ subject: 'local:root', display: 'root', lastSignInAt: clock.now(), admin: true });
        await h.store.setAccountDisabled('local:root', clock.now());
        const heard = h.logs.length;
        const res = await localSignIn(h, '192.0.2.10', FIREFOX, 'root');
        assert.equal(res.status, 403);
        assert.equal(cookieOf(res), '');
        assertEvents(h, heard, ['login.refused_disabled']);
        assert.equal(h.logs.at(-1)?.method, 'local');
      } finally {
        await h.close();
      }
    });

    test('rights follow the provider: removed from the admin group, the next sign-in takes admin from the tokens', async () => {
      const h = await world();
      try {
        const first = await oidcBrowser(h, 'carol', ['paddock-admins']);
        const token = await createToken(h, first, 'write');
        assert.equal((await api(h, token, '/api/v1/audit')).status, 200, 'an admin token');

        // At the provider, Carol leaves the admin group; she signs in again.
        const second = await oidcBrowser(h, 'carol', ['staff']);
        let heard = h.logs.length;
        const audit = await api(h, token, '/api/v1/audit');
        assert.equal(audit.status, 403, 'the token lost admin with the latest sign-in');
        assertEvents(h, heard, ['access.admin_refused']);
        assert.equal(await status(h, '/audit', second), 403, 'the new session is not admin');
        assert.equal(await status(h, '/audit', first), 200, 'a session keeps the flag it was created with');
        assert.equal((await api(h, token, '/api/v1/devices')).status, 200, 'still a token of her account');

        // Back in the group: the token is an admin's again.
        await oidcBrowser(h, 'carol', ['paddock-admins']);
        heard = h.logs.length;
        assert.equal((await api(h, token, '/api/v1/audit')).status, 200);
        assertEvents(h, heard, []);
      } finally {
        await h.close();
      }
    });

    test('tokens are refused while the latest sign-in is older than PADDOCK_ACCOUNT_SIGNIN_MAX_AGE, and /tokens says so', async () => {
      const h = await world();
      try {
        const b = await oidcBrowser(h, 'dave', []);
        const token = await createToken(h, b, 'write');
        let page = await (await h.request('/tokens', { headers: { cookie: b.cookie } })).text();
        assert.match(page, /Your tokens: working until [^]*90 days after the latest sign-in/);
        clock.advance(90 * DAY);
        assert.equal((await api(h, token, '/api/v1/devices')).status, 200, 'exactly 90 days: still working');
        clock.advance(1);
        const heard = h.logs.length;
        const res = await api(h, token, '/api/v1/devices');
        assert.equal(res.status, 401);
        assertEvents(h, heard, ['access_token.refused']);
        assert.equal(h.logs.at(-1)?.reason, 'sign_in_too_old');
        const again = await oidcBrowser(h, 'dave', []);
        page = await (await h.request('/tokens', { headers: { cookie: again.cookie } })).text();
        assert.match(page, /Your tokens: working until/);
        assert.equal((await api(h, token, '/api/v1/devices')).status, 200, 'a sign-in restores them');
        // The break-glass account is Paddock's own: no sign-in age applies.
        const admin = await localBrowser(h, '192.0.2.10', FIREFOX);
        const adminToken = await createToken(h, admin, 'write');
        clock.advance(200 * DAY);
        assert.equal((await api(h, adminToken, '/api/v1/devices')).status, 200);
      } finally {
        await h.close();
      }
    });

    test('a read token made on /tokens reads, and every change it asks for is a 403, minting tokens included', async () => {
      const h = await world();
      try {
        const admin = await localBrowser(h, '192.0.2.10', FIREFOX);
        const read = await createToken(h, admin, 'read');
        const page = await (await h.request('/tokens', { headers: { cookie: admin.cookie } })).text();
        assert.match(page, /<td>a read script<\/td>\s*<td><code>a_[^<]+<\/code><\/td>\s*<td>read<\/td>/);
        assert.equal((await api(h, read, '/api/v1/audit')).status, 200);
        const heard = h.logs.length;
        const mint = await api(h, read, '/api/v1/enroll-tokens', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"uses":1}',
        });
        assert.equal(mint.status, 403);
        assertEvents(h, heard, ['access.read_only_refused']);
        assert.equal(
          (await h.request('/tokens', form({ csrf: admin.csrf, name: 'x', scope: 'admin' }, admin.cookie))).status,
          400,
          'an unknown scope',
        );
      } finally {
        await h.close();
      }
    });
  });
}

await onBothStores(suite);
