/**
 * Recorded sessions, accounts and token scope in the store contract (docs/contract.md section 14):
 * every Store passes these, each test on a fresh store. Run by sqlite.test.ts and postgres.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { SESSION_PUBLIC_ID } from '../../src/domain/sessions.ts';

const MINUTE = 60_000;

function seen(id: string, subject = 'oidc:ann', expiresAt = 100 * MINUTE, admin = false) {
  return { id, subject, admin, expiresAt, client: '192.0.2.1', browser: 'Firefox 128 on Linux' };
}

export function sessionsContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract, sessions and accounts: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    test('a recorded session is listed with its public id, this one marked; last seen at most once a minute', async () => {
      await store.recordSession({ ...seen('cookie-1'), startedAt: 1_000 });
      await store.recordSession({ ...seen('cookie-2'), startedAt: 2_000, client: '192.0.2.2' });
      await store.recordSession({ ...seen('cookie-b', 'oidc:bob'), startedAt: 3_000 });
      const listed = await store.sessionsOf('oidc:ann', 5_000, 'cookie-1');
      assert.deepEqual(
        listed.map((s) => [s.client, s.startedAt, s.lastSeenAt, s.current]),
        [
          ['192.0.2.2', 2_000, 2_000, false],
          ['192.0.2.1', 1_000, 1_000, true],
        ],
        'newest first, only the account own',
      );
      for (const s of listed) assert.match(s.publicId, SESSION_PUBLIC_ID);
      assert.ok(!JSON.stringify(listed).includes('cookie-'), 'the cookie id is never listed');

      assert.equal(await store.seeSession(seen('cookie-1'), 1_000 + MINUTE - 1), 'live');
      assert.equal(
        (await store.sessionsOf('oidc:ann', 5_000)).at(-1)?.lastSeenAt,
        1_000,
        'within the minute: not written',
      );
      assert.equal(await store.seeSession(seen('cookie-1'), 1_000 + MINUTE), 'live');
      assert.equal(
        (await store.sessionsOf('oidc:ann', 5_000)).at(-1)?.lastSeenAt,
        1_000 + MINUTE,
        'a minute on: written',
      );
    });

    test('finding: a session id never recorded at sign-in is refused, and nothing is recorded for it', async () => {
      assert.equal(await store.seeSession(seen('never-recorded'), 7_000), 'ended');
      assert.deepEqual(await store.sessionsOf('oidc:ann', 7_000), []);
      await store.recordSession({ ...seen('cookie'), startedAt: 7_000 });
      await store.recordSession({ ...seen('cookie'), startedAt: 9_000 });
      assert.equal((await store.sessionsOf('oidc:ann', 9_000)).length, 1, 'a second record of an id changes nothing');
    });

    test('finding: a recorded id under another account, admin flag or expiry is refused', async () => {
      await store.recordSession({ ...seen('mine'), startedAt: 1_000 });
      assert.equal(await store.seeSession(seen('mine'), 2_000), 'live');
      assert.equal(await store.seeSession(seen('mine', 'local:admin'), 2_000), 'ended', 'another account');
      assert.equal(await store.seeSession(seen('mine', 'oidc:ann', 100 * MINUTE, true), 2_000), 'ended', 'admin');
      assert.equal(await store.seeSession(seen('mine', 'oidc:ann', 200 * MINUTE), 2_000), 'ended', 'expiry');
      assert.equal(await store.seeSession(seen('mine'), 100 * MINUTE), 'ended', 'expired');
    });

    test('back-channel logout: by sid, narrowed by account when given; a logout token is noted once', async () => {
      await store.recordSession({ ...seen('a1'), sid: 'sid-1', startedAt: 1_000 });
      await store.recordSession({ ...seen('a2'), sid: 'sid-2', startedAt: 1_000 });
      await store.recordSession({ ...seen('b1', 'oidc:bob'), sid: 'sid-1', startedAt: 1_000 });
      assert.deepEqual(await store.endSessionsBySid('sid-1', 'oidc:ann', 2_000), [
        { subject: 'oidc:ann', sessions: 1 },
      ]);
      assert.equal(await store.seeSession(seen('a1'), 2_001), 'ended');
      assert.equal(await store.seeSession(seen('a2'), 2_001), 'live', 'another sid');
      assert.equal(await store.seeSession(seen('b1', 'oidc:bob'), 2_001), 'live', 'narrowed to ann');
      assert.deepEqual(await store.endSessionsBySid('sid-1', undefined, 2_002), [{ subject: 'oidc:bob', sessions: 1 }]);
      assert.equal(await store.seeSession(seen('b1', 'oidc:bob'), 2_003), 'ended');
      assert.deepEqual(await store.endSessionsBySid('sid-1', undefined, 2_004), [], 'none left');

      assert.equal(await store.noteLogoutToken('jti-1', 5_000, 1_000), true);
      assert.equal(await store.noteLogoutToken('jti-1', 5_000, 2_000), false, 'a replay');
      assert.equal(await store.noteLogoutToken('jti-1', 9_000, 5_000), true, 'pruned once past its exp');
    });

    test('ending one by public id: only the account own, only once; ended is refused and no longer listed', async () => {
      await store.recordSession({ ...seen('c1'), startedAt: 1_000 });
      const [s] = await store.sessionsOf('oidc:ann', 2_000);
      assert.ok(s);
      assert.equal(await store.endSessionOf('oidc:bob', s.publicId, 2_000), false, 'not bob own');
      assert.equal(await store.seeSession(seen('c1'), 2_000), 'live');
      assert.equal(await store.endSessionOf('oidc:ann', s.publicId, 2_000), true);
      assert.equal(await store.endSessionOf('oidc:ann', s.publicId, 2_000), false, 'already ended');
      assert.equal(await store.seeSession(seen('c1'), 2_001), 'ended');
      assert.deepEqual(await store.sessionsOf('oidc:ann', 2_001), []);
    });

    test('ending the others keeps the asking one; signing out marks the row ended', async () => {
      for (const id of ['a', 'b', 'c']) await store.recordSession({ ...seen(id), startedAt: 1_000 });
      await store.recordSession({ ...seen('x', 'oidc:bob'), startedAt: 1_000 });
      assert.equal(await store.endSessionsOf('oidc:ann', 2_000, 'b'), 2);
      assert.deepEqual(
        await Promise.all(
          ['a', 'b', 'c', 'x'].map((id) => store.seeSession(seen(id, id === 'x' ? 'oidc:bob' : 'oidc:ann'), 2_001)),
        ),
        ['ended', 'live', 'ended', 'live'],
      );
      await store.endSession('b', 3_000);
      assert.equal(await store.seeSession(seen('b'), 3_001), 'ended', 'signed out');
      assert.deepEqual(await store.sessionsOf('oidc:ann', 3_001), [], 'signed out: no longer listed');
    });

    test('accounts: the latest sign-in sets the admin flag; disable refuses every session; enable undoes it', async () => {
      assert.equal(await store.accountState('oidc:ann'), undefined);
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann', lastSignInAt: 1_000, admin: true });
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann', lastSignInAt: 2_000, admin: false });
      assert.deepEqual(await store.accountState('oidc:ann'), {
        subject: 'oidc:ann',
        display: 'Ann',
        lastSignInAt: 2_000,
        admin: false,
        disabledAt: null,
      });
      await store.recordSession({ ...seen('s'), startedAt: 2_000 });
      assert.equal(await store.setAccountDisabled('oidc:ann', 3_000), true);
      assert.equal(await store.setAccountDisabled('oidc:ann', 4_000), false, 'already disabled');
      assert.equal((await store.accountState('oidc:ann'))?.disabledAt, 3_000);
      assert.equal(await store.seeSession(seen('s'), 3_001), 'ended', 'a disabled account: every session refused');
      assert.equal(await store.setAccountDisabled('oidc:nobody', 3_000), false, 'unknown');
      assert.equal(await store.setAccountDisabled('oidc:ann', null), true);
      assert.equal(await store.setAccountDisabled('oidc:ann', null), false, 'already enabled');
      assert.equal(await store.seeSession(seen('s'), 3_002), 'live');
    });

    test('a token: its scope is kept; the lookup brings its account as it stands now', async () => {
      const make = (hash: string, scope: 'read' | 'write') =>
        store.createAccessToken({
          hash,
          subject: 'oidc:ann',
          admin: true,
          scope,
          name: hash,
          createdAt: 1,
          expiresAt: 1e12,
        });
      assert.equal((await make('h-read', 'read')).scope, 'read');
      await make('h-write', 'write');
      assert.deepEqual(
        (await store.accessTokensOf('oidc:ann', { limit: 10 })).items.map((t) => t.scope),
        ['write', 'read'],
      );
      assert.equal((await store.accessTokenByHash('h-read', 5))?.account, null, 'never signed in');
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann', lastSignInAt: 4, admin: false });
      await store.setAccountDisabled('oidc:ann', 5);
      const found = await store.accessTokenByHash('h-read', 6);
      assert.equal(found?.scope, 'read');
      assert.deepEqual(found?.account, { admin: false, disabledAt: 5, lastSignInAt: 4 });
    });

    test('sign-in states (section 23): each comes back once, to one of many racing; expired ones are swept', async () => {
      assert.equal(await store.oidcStateCameBack('state-a', 10 * MINUTE), true, 'the first time');
      assert.equal(await store.oidcStateCameBack('state-a', 10 * MINUTE), false, 'came back already: a replay');
      assert.equal(await store.oidcStateCameBack('state-b', 11 * MINUTE), true, 'another state');
      const raced = await Promise.all(Array.from({ length: 8 }, () => store.oidcStateCameBack('state-c', 11 * MINUTE)));
      assert.equal(raced.filter(Boolean).length, 1, 'one of eight callbacks at once wins');
      assert.equal(await store.pruneOidcStates(10 * MINUTE - 1, 100), 0, 'none expired yet');
      assert.equal(await store.pruneOidcStates(10 * MINUTE, 100), 1, 'state-a, at its time');
      assert.equal(await store.pruneOidcStates(11 * MINUTE, 100), 2, 'state-b and state-c');
      assert.equal(await store.pruneOidcStates(11 * MINUTE, 100), 0);
    });
  });
}
