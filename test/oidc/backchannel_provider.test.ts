// Back-channel logout (docs/contract.md section 17) with a real identity provider, on both stores:
// a person signs in to Paddock through oidc-provider's own pages, then signs out at the provider,
// which posts its logout token to Paddock; the Paddock session of that sign-in is refused at once,
// the other sign-ins are not, and the audit trail says who and how many. A client registered
// without `backchannel_logout_session_required` gets logout tokens naming only the account: every
// session of it ends. No browser: the provider's forms are filled in over fetch
// (test/e2e/provider_user.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Live, live } from '../support/live.ts';
import { databaseUrl, dropDatabase, freshDatabase, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { freePort } from '../support/tls_fixture.ts';
import { CLIENT, paddockClient, type StartedProvider, startProvider } from '../e2e/provider.ts';
import { ProviderUser } from '../e2e/provider_user.ts';

const pgAvailable = await postgresAvailable();
const stores = [
  { store: 'sqlite', skip: false as const },
  { store: 'postgres', skip: !pgAvailable && SKIP_REASON },
];
/** Each store's two Paddocks: one whose client gets `sid` in its tokens, one whose client gets only `sub`. */
const paddocks = await Promise.all(
  stores.flatMap(({ store }) =>
    (['sid', 'sub'] as const).map(async (names) => {
      const base = `http://127.0.0.1:${await freePort()}`;
      return { store, names, base, clientId: `${CLIENT.id}-${store}-${names}` };
    }),
  ),
);
const paddockFor = (store: string, names: 'sid' | 'sub') => {
  const found = paddocks.find((p) => p.store === store && p.names === names);
  if (!found) throw new Error(`no Paddock for ${store}, ${names}`);
  return found;
};

let provider: StartedProvider;
before(async () => {
  // One provider for the file; one client per Paddock, as separate deployments would register.
  provider = await startProvider(
    await freePort(),
    paddocks.map((p) => paddockClient(p.base, { id: p.clientId, sessionRequired: p.names === 'sid' })),
  );
});
after(() => provider?.close());

/** A Paddock of `store` at `base` signing in through the provider as `clientId`; stopped after the suite. */
function paddockOn(store: string, base: string, clientId: string): () => Live {
  let paddock: Live | undefined;
  let database: string | undefined;
  before(async () => {
    if (store === 'postgres') database = await freshDatabase();
    paddock = await live({
      PADDOCK_LISTEN: new URL(base).host,
      PADDOCK_BASE_URL: base,
      PADDOCK_OIDC_ISSUER: provider.issuer,
      PADDOCK_OIDC_CLIENT_ID: clientId,
      PADDOCK_OIDC_CLIENT_SECRET: CLIENT.secret,
      ...(database ? { PADDOCK_DATABASE_URL: databaseUrl(database) } : {}),
    });
  });
  after(async () => {
    await paddock?.close();
    if (database) await dropDatabase(database);
  });
  return () => {
    if (!paddock) throw new Error('Paddock did not start');
    return paddock;
  };
}

/** GET /devices with `cookie`: 200 while the session holds, 303 to /login once it is refused. */
async function devices(base: string, cookie: string) {
  const res = await fetch(`${base}/devices`, { headers: { cookie }, redirect: 'manual' });
  await res.body?.cancel();
  return { status: res.status, location: res.headers.get('location') };
}

/** The audit trail's `session.ended_by_provider` records, read as the break-glass administrator. */
async function endedByProvider(paddock: Live) {
  const admin = await paddock.signIn();
  const trail = await fetch(`${paddock.url}/audit.jsonl?event=session.ended_by_provider`, {
    headers: { cookie: admin.cookie },
  });
  assert.equal(trail.status, 200);
  return (await trail.text())
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { event: string; account: string; detail: string })
    .map((r) => [r.event, r.account, r.detail]);
}

for (const { store, skip } of stores) {
  describe(`${store}: signing out at the identity provider ends the Paddock session of that sign-in`, { skip }, () => {
    const { base, clientId } = paddockFor(store, 'sid');
    const started = paddockOn(store, base, clientId);
    let paddock: Live;
    before(() => (paddock = started()));

    test("the whole sign-in through the provider's pages; its identity token carries the sign-in's sid", async () => {
      const issued = provider.idTokens.length;
      const cookie = await new ProviderUser().signIn(base, 'alice');
      assert.deepEqual(await devices(base, cookie), { status: 200, location: null });
      const idToken = provider.idTokens[issued];
      assert.equal(provider.idTokens.length, issued + 1);
      assert.equal(idToken?.sub, 'alice');
      assert.equal(idToken?.aud, clientId);
      assert.match(String(idToken?.sid), /^[A-Za-z0-9_-]{10,}$/, 'the identity token names the sign-in (sid)');
    });

    test("the provider's logout token ends the session of that sign-in only, on the next request; audited with the account and sessions=1", async () => {
      // Alice signs in twice (two browsers: two sign-ins at the provider, two sids), Bob once.
      const [first, second, bob] = [new ProviderUser(), new ProviderUser(), new ProviderUser()];
      const issued = provider.idTokens.length;
      const firstCookie = await first.signIn(base, 'alice');
      const secondCookie = await second.signIn(base, 'alice');
      const bobCookie = await bob.signIn(base, 'bob');
      const [firstSid, secondSid] = provider.idTokens.slice(issued).map((t) => t.sid);
      assert.ok(firstSid && secondSid && firstSid !== secondSid, 'two sign-ins, two sids');
      for (const cookie of [firstCookie, secondCookie, bobCookie])
        assert.equal((await devices(base, cookie)).status, 200);

      const posted = provider.logoutPosts.length;
      await first.signOutAtProvider(provider.issuer);
      const post = provider.logoutPosts[posted];
      assert.equal(provider.logoutPosts.length, posted + 1, 'one logout token, to the one client signed in');
      assert.equal(post?.url, `${base}/oidc/backchannel-logout`);
      assert.equal(post?.error, undefined);
      assert.equal(post?.status, 200, 'Paddock accepted the logout token');
      assert.equal(post?.cacheControl, 'no-store');
      assert.equal(post?.claims.sid, firstSid, 'the logout token names the sign-in the identity token named');
      assert.equal(post?.claims.sub, 'alice');

      assert.deepEqual(await devices(base, firstCookie), { status: 303, location: '/login' });
      assert.equal((await devices(base, secondCookie)).status, 200, "alice's other sign-in is untouched");
      assert.equal((await devices(base, bobCookie)).status, 200, "bob's session is untouched");

      const heard = paddock.logs.filter((r) => r.event === 'session.ended_by_provider');
      assert.deepEqual(
        heard.map((r) => [r.account, r.sessions]),
        [['oidc:alice', 1]],
      );
      assert.deepEqual(await endedByProvider(paddock), [['session.ended_by_provider', 'oidc:alice', 'sessions=1']]);

      // The account is not disabled: signing in again at the provider starts a new session.
      const again = await first.signIn(base, 'alice');
      assert.equal((await devices(base, again)).status, 200);
    });

    test("the provider's logout token posted again is refused as a replay: 400 invalid_request, nothing more ended", async () => {
      const user = new ProviderUser();
      const cookie = await user.signIn(base, 'bob');
      const posted = provider.logoutPosts.length;
      await user.signOutAtProvider(provider.issuer);
      const token = provider.logoutPosts[posted]?.token ?? '';
      assert.equal(provider.logoutPosts[posted]?.status, 200);
      assert.equal((await devices(base, cookie)).status, 303);
      const ended = paddock.logs.filter((r) => r.event === 'session.ended_by_provider').length;
      const other = await new ProviderUser().signIn(base, 'bob');

      const replay = await fetch(`${base}/oidc/backchannel-logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: token }),
      });
      assert.equal(replay.status, 400);
      assert.equal(replay.headers.get('cache-control'), 'no-store');
      const answer = (await replay.json()) as { error: string; error_description: string };
      assert.equal(answer.error, 'invalid_request');
      assert.equal(typeof answer.error_description, 'string');
      assert.equal(paddock.logs.filter((r) => r.event === 'session.ended_by_provider').length, ended);
      assert.equal((await devices(base, other)).status, 200, "bob's new sign-in is untouched");
    });
  });

  describe(`${store}: a logout token naming only the account ends every session of it`, { skip }, () => {
    const { base, clientId } = paddockFor(store, 'sub');
    const started = paddockOn(store, base, clientId);
    let paddock: Live;
    before(() => (paddock = started()));

    test('without backchannel_logout_session_required: no sid in either token; every session of alice ends, bob’s holds; sessions=2', async () => {
      const [first, second, bob] = [new ProviderUser(), new ProviderUser(), new ProviderUser()];
      const issued = provider.idTokens.length;
      const cookies = [await first.signIn(base, 'alice'), await second.signIn(base, 'alice')];
      const bobCookie = await bob.signIn(base, 'bob');
      assert.deepEqual(
        provider.idTokens.slice(issued).map((t) => t.sid),
        [undefined, undefined, undefined],
      );

      const posted = provider.logoutPosts.length;
      await first.signOutAtProvider(provider.issuer);
      const post = provider.logoutPosts[posted];
      assert.equal(post?.url, `${base}/oidc/backchannel-logout`);
      assert.equal(post?.status, 200, `Paddock accepted the logout token${post?.error ? `: ${post.error}` : ''}`);
      assert.equal(post?.claims.sub, 'alice');
      assert.equal(post?.claims.sid, undefined, 'the logout token names only the account');

      for (const cookie of cookies) assert.deepEqual(await devices(base, cookie), { status: 303, location: '/login' });
      assert.equal((await devices(base, bobCookie)).status, 200, "bob's session is untouched");
      assert.deepEqual(await endedByProvider(paddock), [['session.ended_by_provider', 'oidc:alice', 'sessions=2']]);
    });
  });
}
