// The OIDC sign-in flow against a fake provider on loopback that signs real tokens:
// the authorization request, every callback failure row, and every identity token rule.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createOidcClient } from '../../src/oidc/client.ts';
import { TOKEN_READ_CAP, TOKEN_TIMEOUT_MS } from '../../src/oidc/exchange.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { harness, type Harness } from '../support/harness.ts';

let provider: FakeProvider;
let h: Harness;
const defaults = () =>
  ({ discovery: 'ok', token: 'ok', idToken: 'ok', idTokenAlg: 'RS256', algsSupported: ['RS256', 'ES256'] }) as const;

before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

beforeEach(async () => {
  if (h) await h.close();
  Object.assign(provider.behaviour, defaults());
  provider.requests.length = 0;
  h = await buildHarness();
});
after(() => h.close());

/** One clock for the provider's iat/exp and every harness, so token times line up. */
const clock = fakeClock();

function buildHarness(extra: Parameters<typeof harness>[0] = {}) {
  return harness({
    ...extra,
    clock,
    oidc: clientFor(provider, clock, { tokenTimeoutMs: 300 }),
    config: { clientId: provider.clientId, clientSecret: provider.clientSecret, ...extra.config },
  });
}

/** Runs /auth/start and returns the state cookie, its parts and the authorization URL. */
async function start(target = h) {
  const res = await target.request('/auth/start');
  assert.equal(res.status, 303, await res.clone().text());
  const set = res.headers.getSetCookie();
  const cookie = (set[0] ?? '').split(';')[0] ?? '';
  const [state = '', verifier = ''] = cookie.replace(/^service_oidc=/, '').split('.');
  return { res, set, cookie, state, verifier, url: new URL(res.headers.get('location') ?? '') };
}

async function callback(query: Record<string, string>, cookie?: string, target = h) {
  return target.request(
    `/admin/callback?${new URLSearchParams(query)}`,
    { headers: cookie ? { cookie } : {} },
    '198.51.100.20',
  );
}

/** Starts, lets the fake provider issue a code, and calls back; returns the callback response. */
async function signIn(claims?: Record<string, unknown>) {
  const s = await start();
  const code = provider.issueCode({ claims, codeChallenge: s.url.searchParams.get('code_challenge') ?? '' });
  return callback({ state: s.state, code }, s.cookie);
}

const clears = /^service_oidc=; Path=\/; Max-Age=-1; HttpOnly; SameSite=Lax$/;

describe('GET /auth/start', () => {
  test('303 to the authorization endpoint with exactly the specified query', async () => {
    const { url, set, state, verifier } = await start();
    assert.equal(`${url.origin}${url.pathname}`, `${provider.issuer}/authorize`);
    const q = Object.fromEntries(url.searchParams);
    assert.deepEqual(Object.keys(q).sort(), [
      'client_id',
      'code_challenge',
      'code_challenge_method',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
    ]);
    assert.equal(q.response_type, 'code');
    assert.equal(q.client_id, provider.clientId);
    assert.equal(q.redirect_uri, 'http://127.0.0.1:8080/admin/callback');
    assert.equal(q.scope, 'openid profile email');
    assert.equal(q.state, state);
    assert.equal(q.code_challenge_method, 'S256');
    assert.equal(q.code_challenge, createHash('sha256').update(verifier).digest('base64url'));
    assert.match(state, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, URL-safe base64 without padding');
    assert.match(verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(set.length, 1);
    assert.match(
      set[0] ?? '',
      /^service_oidc=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
  });

  test('state and verifier are fresh each time', async () => {
    const [a, b] = [await start(), await start()];
    assert.notEqual(a.state, b.state);
    assert.notEqual(a.verifier, b.verifier);
  });

  test('redirect_uri drops a trailing slash of BaseURL; the cookie is Secure when configured', async () => {
    const other = await buildHarness({ config: { baseUrl: 'https://console.example/', secure: true } });
    const { url, set } = await start(other);
    assert.equal(url.searchParams.get('redirect_uri'), 'https://console.example/admin/callback');
    assert.match(set[0] ?? '', /; HttpOnly; Secure; SameSite=Lax$/);
    await other.close();
  });

  test('502 with the underlying error when discovery fails', async () => {
    for (const mode of ['status500', 'badJson', 'wrongIssuer', 'down'] as const) {
      provider.behaviour.discovery = mode;
      const fresh = await buildHarness();
      const res = await fresh.request('/auth/start');
      assert.equal(res.status, 502, mode);
      const body = await res.text();
      assert.match(body, /unreachable/);
      assert.match(body, mode === 'wrongIssuer' ? /issuer/ : mode === 'status500' ? /500/ : /./);
      assert.equal(res.headers.getSetCookie().length, 0);
      await fresh.close();
    }
  });

  test('a failed discovery is remembered for 5 s and concurrent ones share a request; then it is tried again', async () => {
    provider.behaviour.discovery = 'status500';
    const fresh = await buildHarness();
    const discoveries = () => provider.requests.filter((r) => r.path.endsWith('/openid-configuration')).length;
    provider.requests.length = 0;
    const answers = await Promise.all([1, 2, 3].map(() => fresh.request('/auth/start')));
    assert.deepEqual(
      answers.map((r) => r.status),
      [502, 502, 502],
    );
    assert.equal(discoveries(), 1, 'three concurrent starts, one discovery');
    clock.advance(4_000);
    const remembered = await fresh.request('/auth/start');
    assert.equal(remembered.status, 502);
    assert.match(await remembered.text(), /500/, 'the remembered answer still names the error');
    assert.equal(discoveries(), 1, 'within 5 s: no new request');
    provider.behaviour.discovery = 'ok';
    clock.advance(1_000);
    assert.equal((await fresh.request('/auth/start')).status, 303, 'after 5 s the provider is asked again');
    assert.equal(discoveries(), 2);
    await fresh.close();
  });

  test('501 when no provider, when disabled, or when BaseURL is empty', async () => {
    const none = await harness();
    const disabled = await buildHarness({ config: { oidcEnabled: false } });
    const noBase = await buildHarness({ config: { baseUrl: '' } });
    for (const target of [none, disabled, noBase]) {
      for (const path of ['/auth/start', '/admin/callback?state=a&code=b']) {
        const res = await target.request(path, { headers: { cookie: 'service_oidc=a.b' } });
        assert.equal(res.status, 501, path);
        assert.match(await res.text(), /no identity provider configured/);
        // The state cookie is cleared whenever the callback is reached.
        const cleared = path.startsWith('/admin/callback')
          ? [/^service_oidc=; Path=\/; Max-Age=-1; HttpOnly; SameSite=Lax$/]
          : [];
        const cookies = res.headers.getSetCookie();
        assert.equal(cookies.length, cleared.length, path);
        cleared.forEach((pattern, i) => assert.match(cookies[i] ?? '', pattern));
      }
      assert.doesNotMatch(await (await target.request('/login')).text(), /auth\/start/);
      await target.close();
    }
  });

  test('the login page offers OIDC when it is available', async () => {
    assert.match(await (await h.request('/login')).text(), /href="\/auth\/start"/);
  });
});

describe('GET /admin/callback', () => {
  test('success: token exchange exactly as specified, session for oidc:<sub>, 303 to /, state cookie cleared, logged', async () => {
    const s = await start();
    const code = provider.issueCode({ codeChallenge: s.url.searchParams.get('code_challenge') ?? '' });
    const res = await callback({ state: s.state, code }, s.cookie);
    assert.equal(res.status, 303, await res.clone().text());
    assert.equal(res.headers.get('location'), '/');
    const exchange = provider.requests.find((r) => r.path === '/token');
    assert.equal(exchange?.method, 'POST');
    assert.match(String(exchange?.headers['content-type']), /^application\/x-www-form-urlencoded/);
    assert.deepEqual(exchange?.form, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:8080/admin/callback',
      client_id: provider.clientId,
      code_verifier: s.verifier,
      client_secret: provider.clientSecret,
    });
    const cookies = res.headers.getSetCookie();
    assert.ok(
      cookies.some((c) => clears.test(c)),
      JSON.stringify(cookies),
    );
    const session = cookies.find((c) => c.startsWith('service_admin='));
    assert.match(session ?? '', /^service_admin=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    const dash = await h.request('/', { headers: { cookie: (session ?? '').split(';')[0] ?? '' } });
    assert.equal(dash.status, 200);
    const page = await dash.text();
    assert.match(page, /Signed in as <strong>Test User<\/strong> \(oidc:user-1\)/);
    assert.ok(
      h.logs.some(
        (r) =>
          r.event === 'login.oidc.succeeded' &&
          r.account === 'oidc:user-1' &&
          r.method === 'oidc' &&
          r.admin === false &&
          r.client === '198.51.100.20',
      ),
    );
    assert.ok(!JSON.stringify(h.logs).includes(code), 'no authorization code in the log');
  });

  test('no client_secret is sent when none is configured', async () => {
    const publicClient = createOidcClient({
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: '',
      clock,
    });
    const target = await harness({
      clock,
      oidc: publicClient,
      config: { clientId: provider.clientId, clientSecret: '' },
    });
    const s = await start(target);
    const code = provider.issueCode({ codeChallenge: s.url.searchParams.get('code_challenge') ?? '' });
    await callback({ state: s.state, code }, s.cookie, target);
    const exchange = provider.requests.find((r) => r.path === '/token');
    assert.equal(exchange?.form?.client_secret, undefined);
    assert.equal(exchange?.form?.code_verifier, s.verifier);
    await target.close();
  });

  test('membership of the admin group gives an admin session; display falls back to preferred_username, email, sub', async () => {
    const res = await signIn({ groups: ['staff', 'paddock-admins'], name: '', preferred_username: 'ada' });
    assert.equal(res.status, 303);
    assert.ok(h.logs.some((r) => r.event === 'login.oidc.succeeded' && r.admin === true));
    const cookie = (res.headers.getSetCookie().find((c) => c.startsWith('service_admin=')) ?? '').split(';')[0] ?? '';
    assert.match(
      await (await h.request('/', { headers: { cookie } })).text(),
      /<strong>ada<\/strong> \(oidc:user-1, administrator\)/,
    );
    const r2 = await signIn({ name: undefined, preferred_username: undefined, email: undefined, sub: 'only-sub' });
    const c2 = (r2.headers.getSetCookie().find((c) => c.startsWith('service_admin=')) ?? '').split(';')[0] ?? '';
    assert.match(await (await h.request('/', { headers: { cookie: c2 } })).text(), /<strong>only-sub<\/strong>/);
  });

  test('an account outside the admin group gets a session with Admin=false that cannot mint', async () => {
    const res = await signIn({ groups: ['staff'] });
    const cookie = (res.headers.getSetCookie().find((c) => c.startsWith('service_admin=')) ?? '').split(';')[0] ?? '';
    const devices = await (await h.request('/devices', { headers: { cookie } })).text();
    assert.doesNotMatch(devices, /enroll-tokens/);
  });

  test('400 without the state cookie', async () => {
    const res = await callback({ state: 'x', code: 'y' });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /did not start here/);
  });

  for (const [name, cookieOf, queryOf] of [
    [
      'state query not equal',
      (s: string, v: string) => `service_oidc=${s}.${v}`,
      (s: string) => ({ state: `${s}x`, code: 'c' }),
    ],
    ['state query missing', (s: string, v: string) => `service_oidc=${s}.${v}`, () => ({ code: 'c' })],
    ['cookie without a dot', (s: string) => `service_oidc=${s}`, (s: string) => ({ state: s, code: 'c' })],
    ['empty state in the cookie', (_s: string, v: string) => `service_oidc=.${v}`, () => ({ state: '', code: 'c' })],
    ['garbage cookie', () => 'service_oidc=%00<>', () => ({ state: '%00<>', code: 'c' })],
  ] as const) {
    test(`400 state mismatch, cookie cleared: ${name}`, async () => {
      const s = await start();
      const res = await callback(queryOf(s.state), cookieOf(s.state, s.verifier));
      assert.equal(res.status, 400);
      assert.match(await res.text(), /state mismatch/);
      assert.ok(res.headers.getSetCookie().some((c) => clears.test(c)));
      assert.equal(provider.requests.filter((r) => r.path === '/token').length, 0);
    });
  }

  test('400 without code, the body includes the error query value, cookie cleared', async () => {
    const s = await start();
    const res = await callback({ state: s.state, error: 'access_denied' }, s.cookie);
    assert.equal(res.status, 400);
    assert.match(await res.text(), /no code.*access_denied/);
    assert.ok(res.headers.getSetCookie().some((c) => clears.test(c)));
  });

  for (const mode of [
    'status400',
    'status500',
    'badJson',
    'badJsonToken',
    'notObject',
    'noIdToken',
    'emptyIdToken',
    'hang',
    'huge',
    'destroy',
  ] as const) {
    test(`502 and a log record when the token exchange fails: ${mode}`, async () => {
      provider.behaviour.token = mode;
      const res = await signIn();
      assert.equal(res.status, 502);
      assert.match(await res.text(), /could not complete sign-in/);
      assert.ok(res.headers.getSetCookie().some((c) => clears.test(c)));
      assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('service_admin=')));
      assert.ok(
        h.logs.some(
          (r) =>
            r.event === 'login.oidc.exchange_failed' && r.client === '198.51.100.20' && typeof r.error === 'string',
        ),
      );
      const logged = JSON.stringify(h.logs);
      for (const fragment of ['eyJ', 'c2VjcmV0', 'at-'])
        assert.ok(!logged.includes(fragment), `${fragment} in the log`);
    });
  }

  test('502 when the code or verifier is wrong (the provider refuses)', async () => {
    const s = await start();
    const code = provider.issueCode({ codeChallenge: 'not-the-challenge' });
    const res = await callback({ state: s.state, code }, s.cookie);
    assert.equal(res.status, 502);
  });

  for (const mode of [
    'wrongIss',
    'wrongAud',
    'multiAudNoAzp',
    'multiAudWrongAzp',
    'multiAudGoodAzp',
    'longSub',
    'controlInSub',
    'expired',
    'noExp',
    'noIat',
    'noSub',
    'nonce',
    'algNone',
    'hs256',
    'unknownKid',
    'badSignature',
    'futureIat',
  ] as const) {
    test(`403 and a log record when the identity token is not accepted: ${mode}`, async () => {
      provider.behaviour.idToken = mode;
      const res = await signIn();
      assert.equal(res.status, 403);
      assert.match(await res.text(), /identity token not accepted/);
      assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('service_admin=')));
      const record = h.logs.find((r) => r.event === 'login.oidc.token_rejected');
      assert.ok(record && record.client === '198.51.100.20' && typeof record.error === 'string');
      assert.ok(!JSON.stringify(h.logs).includes('eyJ'), 'no token in the log');
    });
  }

  test('an audience array that names only this client is accepted; a sub of 255 characters too', async () => {
    provider.behaviour.idToken = 'audArrayOfOne';
    assert.equal((await signIn()).status, 303);
    provider.behaviour.idToken = 'ok';
    assert.equal((await signIn({ sub: 's'.repeat(255) })).status, 303);
  });

  test('ES256 tokens verify when discovery allows them; a token in an algorithm outside the allow-list is refused', async () => {
    provider.behaviour.idTokenAlg = 'ES256';
    assert.equal((await signIn()).status, 303);
    provider.behaviour.algsSupported = ['RS256'];
    const fresh = await buildHarness();
    const saved = h;
    h = fresh;
    assert.equal((await signIn()).status, 403);
    h = saved;
    await fresh.close();
  });

  test('key rotation: a token signed with a new key verifies after the key set is refetched', async () => {
    assert.equal((await signIn()).status, 303);
    await provider.rotateKey();
    assert.equal((await signIn()).status, 303);
    assert.ok(provider.requests.filter((r) => r.path === '/jwks').length >= 2);
  });

  test('a callback is answered once: replaying it is a state mismatch, and the provider is not asked again', async () => {
    const s = await start();
    const code = provider.issueCode({ codeChallenge: s.url.searchParams.get('code_challenge') ?? '' });
    assert.equal((await callback({ state: s.state, code }, s.cookie)).status, 303);
    const replay = await callback({ state: s.state, code }, s.cookie);
    assert.equal(replay.status, 400);
    assert.match(await replay.text(), /state mismatch/);
    assert.equal(provider.requests.filter((r) => r.path === '/token').length, 1, 'one token request, for the first');
  });
});

test('the exchange limits are those of the specification', () => {
  assert.equal(TOKEN_TIMEOUT_MS, 15_000);
  assert.equal(TOKEN_READ_CAP, 1_048_576);
});

test('the dashboard self-test shows OIDC discovery passing, and failing when the provider is down', async () => {
  const { cookie } = h.signIn({ subject: 'local:admin', admin: true });
  assert.match(await (await h.request('/', { headers: { cookie } })).text(), /OIDC discovery<\/th>\s*<td>passed/);
  provider.behaviour.discovery = 'down';
  const fresh = await buildHarness();
  const page = await (
    await fresh.request('/', { headers: { cookie: fresh.signIn({ subject: 'local:admin', admin: true }).cookie } })
  ).text();
  assert.match(page, /OIDC discovery<\/th>\s*<td>FAILED/);
  assert.match(page, /1 of 3 checks failed/);
  await fresh.close();
});
