// POST /oidc/backchannel-logout (docs/contract.md section 17; OpenID Connect Back-Channel Logout 1.0
// section 2.6), against a fake provider that signs real tokens, on both stores: every check the
// contract lists refuses its token with 400 and ends nothing; a valid token ends the sessions it
// names, once. The real provider (oidc-provider) drives it end to end in test/e2e.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../src/oidc/logout_token.ts';
import type { Store } from '../../src/store/store.ts';
import {
  clientFor,
  type FakeProvider,
  OTHER_CLIENT_ID,
  startFakeProvider,
  WRONG_ISSUER,
} from '../support/fake_oidc_provider.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { harness, type Harness } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';

const clock = fakeClock();
let provider: FakeProvider;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

const nowS = () => Math.floor(clock.now() / 1000);
let jtis = 0;

/** The claims of a valid logout token for `sub` and `sid`; `over` changes or (undefined) removes some. */
function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    iss: provider.issuer,
    aud: provider.clientId,
    iat: nowS(),
    exp: nowS() + 120,
    jti: `jti-${++jtis}`,
    sub: 'ann',
    sid: 'sid-ann-1',
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
  };
  const out = { ...base, ...over };
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k];
  return out;
}

const logoutToken = (over: Record<string, unknown> = {}, opts: Parameters<FakeProvider['sign']>[1] = {}) =>
  provider.sign(claims(over), { typ: 'logout+jwt', ...opts });

async function post(h: Harness, token: string | undefined, extra = '') {
  const body = token === undefined ? extra : `logout_token=${encodeURIComponent(token)}${extra}`;
  return h.request('/oidc/backchannel-logout', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
}

/** Signs `sub` in through the provider with `sid` in the identity token; the session cookie. */
async function signIn(h: Harness, sub: string, sid?: string): Promise<string> {
  const start = await h.request('/auth/start');
  const oidcCookie = (start.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const url = new URL(start.headers.get('location') ?? '');
  const code = provider.issueCode({
    claims: { sub, ...(sid === undefined ? {} : { sid }) },
    codeChallenge: url.searchParams.get('code_challenge') ?? '',
  });
  const state = url.searchParams.get('state') ?? '';
  const res = await h.request(`/admin/callback?${new URLSearchParams({ state, code })}`, {
    headers: { cookie: oidcCookie },
  });
  assert.equal(res.status, 303, await res.text());
  return (
    res.headers
      .getSetCookie()
      .find((c) => c.startsWith('service_admin='))
      ?.split(';')[0] ?? ''
  );
}

const live = async (h: Harness, cookie: string) =>
  (await h.request('/devices', { headers: { cookie }, redirect: 'manual' })).status === 200;

/** Tokens that fail one check each: the contract's list, in its order. */
const REFUSED: Array<[string, () => Promise<string>, RegExp]> = [
  [
    'signed by a key not in the key set',
    async () => logoutToken({}, { hmacSecret: new Uint8Array(32) }),
    /verification failed/,
  ],
  ['unsigned (alg none)', async () => logoutToken({}, { unsecured: true }), /verification failed/],
  [
    'signed with an algorithm the provider does not allow',
    async () => logoutToken({}, { alg: 'HS256' }),
    /verification failed/,
  ],
  ['another issuer', async () => logoutToken({ iss: WRONG_ISSUER }), /verification failed.*iss/],
  ['another audience', async () => logoutToken({ aud: OTHER_CLIENT_ID }), /verification failed.*aud/],
  ['no iat', async () => logoutToken({ iat: undefined }), /verification failed.*iat/],
  ['iat in the future', async () => logoutToken({ iat: nowS() + 3600, exp: nowS() + 3700 }), /iat/],
  ['no exp', async () => logoutToken({ exp: undefined }), /verification failed.*exp/],
  ['exp passed', async () => logoutToken({ iat: nowS() - 600, exp: nowS() - 300 }), /verification failed.*exp/],
  ['no jti', async () => logoutToken({ jti: undefined }), /verification failed.*jti/],
  ['no events', async () => logoutToken({ events: undefined }), /verification failed.*events/],
  ['events without the back-channel logout member', async () => logoutToken({ events: { other: {} } }), /events/],
  [
    'the event member not an object',
    async () => logoutToken({ events: { [BACKCHANNEL_LOGOUT_EVENT]: 'yes' } }),
    /events/,
  ],
  ['neither sub nor sid', async () => logoutToken({ sub: undefined, sid: undefined }), /neither sub nor sid/],
  ['a nonce', async () => logoutToken({ nonce: 'n-1' }), /nonce/],
  ['typ JWT (not logout+jwt)', async () => logoutToken({}, { typ: 'JWT' }), /typ/],
  [
    'an identity token (typ JWT, no events)',
    async () => logoutToken({ events: undefined, nonce: undefined }, { typ: 'JWT' }),
    /typ/,
  ],
  ['sid not a string', async () => logoutToken({ sid: 42 }), /sid/],
  ['sub with a control character', async () => logoutToken({ sub: 'ann\n' }), /sub/],
  ['not a JWT', async () => 'not.a.jwt', /not a signed JWT|verification failed/],
];

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  const world = async () =>
    harness({
      store: await open(),
      clock,
      oidc: clientFor(provider, clock),
      config: { clientId: provider.clientId, clientSecret: provider.clientSecret },
    });

  describe(`back-channel logout: ${name}`, { skip }, () => {
    test('every failed check: 400 invalid_request, no-store, nothing ended, logged', async () => {
      const h = await world();
      try {
        const cookie = await signIn(h, 'ann', 'sid-ann-1');
        for (const [why, make, description] of REFUSED) {
          const res = await post(h, await make());
          assert.equal(res.status, 400, why);
          assert.equal(res.headers.get('cache-control'), 'no-store', why);
          const body = (await res.json()) as { error: string; error_description: string };
          assert.equal(body.error, 'invalid_request', why);
          assert.match(body.error_description, description, why);
          assert.equal(await live(h, cookie), true, `${why}: nothing ended`);
        }
        for (const [why, body] of [
          ['no logout_token', 'other=1'],
          ['an empty logout_token', 'logout_token='],
          ['logout_token twice', `logout_token=a&logout_token=b`],
        ] as const) {
          const res = await post(h, undefined, body);
          assert.equal(res.status, 400, why);
          assert.equal(((await res.json()) as { error: string }).error, 'invalid_request');
        }
        assert.equal(await live(h, cookie), true);
        assert.ok(h.logs.filter((r) => r.event === 'oidc.logout_token_rejected').length >= REFUSED.length);
        assert.equal(h.logs.filter((r) => r.event === 'session.ended_by_provider').length, 0);
      } finally {
        await h.close();
      }
    });

    test('by sid: the sessions of that sign-in end, others stay; audited; a replay is refused', async () => {
      const h = await world();
      try {
        const first = await signIn(h, 'ann', 'sid-ann-1');
        const again = await signIn(h, 'ann', 'sid-ann-1');
        const elsewhere = await signIn(h, 'ann', 'sid-ann-2');
        const bob = await signIn(h, 'bob', 'sid-ann-1');
        const token = await logoutToken({ sub: 'ann', sid: 'sid-ann-1' });
        const res = await post(h, token);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.deepEqual(
          await Promise.all([first, again, elsewhere, bob].map((c) => live(h, c))),
          [false, false, true, true],
          'only ann sign-in sid-ann-1 (bob has the same sid at another account: narrowed by sub)',
        );
        await h.flushAudit();
        const ended = h.logs.filter((r) => r.event === 'session.ended_by_provider');
        assert.deepEqual(
          ended.map((r) => [r.account, r.sessions]),
          [['oidc:ann', 2]],
        );
        const replay = await post(h, token);
        assert.equal(replay.status, 400);
        assert.match(((await replay.json()) as { error_description: string }).error_description, /jti/);
        // The account is not disabled: it signs in again.
        assert.equal(await live(h, await signIn(h, 'ann', 'sid-ann-3')), true);
      } finally {
        await h.close();
      }
    });

    test('sid alone ends that sign-in whoever it was; sub alone ends every session of the account', async () => {
      const h = await world();
      try {
        const ann = await signIn(h, 'ann', 'sid-x');
        const ann2 = await signIn(h, 'ann', 'sid-y');
        const bob = await signIn(h, 'bob');
        assert.equal((await post(h, await logoutToken({ sub: undefined, sid: 'sid-x' }))).status, 200);
        assert.deepEqual(await Promise.all([ann, ann2, bob].map((c) => live(h, c))), [false, true, true]);
        assert.equal((await post(h, await logoutToken({ sub: 'bob', sid: undefined }))).status, 200);
        assert.deepEqual(await Promise.all([ann, ann2, bob].map((c) => live(h, c))), [false, true, false]);
        await h.flushAudit();
        assert.deepEqual(
          h.logs.filter((r) => r.event === 'session.ended_by_provider').map((r) => [r.account, r.sessions]),
          [
            ['oidc:ann', 1],
            ['oidc:bob', 1],
          ],
        );
        // A token for a sign-in with no live session: 200, nothing to end, nothing recorded without an account.
        assert.equal((await post(h, await logoutToken({ sub: undefined, sid: 'sid-none' }))).status, 200);
      } finally {
        await h.close();
      }
    });
  });
}

test('501 when OIDC is unavailable; GET is 405', async () => {
  const h = await harness();
  try {
    const res = await post(h, 'x');
    assert.equal(res.status, 501);
    assert.equal((await h.request('/oidc/backchannel-logout')).status, 405);
  } finally {
    await h.close();
  }
});

await onBothStores(suite);
