/**
 * The personal access tokens part of the store contract (docs/contract.md section 11): every Store passes
 * these, each test on a fresh store. Run by sqlite.test.ts and postgres.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { NewAccessToken } from '../../src/domain/access_tokens.ts';

const ANN = 'oidc:ann';
const BOB = 'oidc:bob';

function fresh(subject: string, n: number, more: Partial<NewAccessToken> = {}): NewAccessToken {
  return {
    hash: `h-${subject}-${n}`,
    subject,
    admin: false,
    scope: 'write',
    name: `token ${n}`,
    createdAt: n,
    expiresAt: n + 1000,
    ...more,
  };
}

export function accessTokensContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract, access tokens: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    test('a created token is listed for its account only, newest first, keyset paged', async () => {
      const made = [];
      for (let n = 1; n <= 5; n++) made.push(await store.createAccessToken(fresh(ANN, n)));
      await store.createAccessToken(fresh(BOB, 9, { admin: true }));
      assert.match(made[0]!.publicId, /^a_[A-Za-z0-9_-]+$/);
      assert.equal(new Set(made.map((t) => t.publicId)).size, 5);
      const first = await store.accessTokensOf(ANN, { limit: 2 });
      assert.deepEqual(
        first.items.map((t) => t.name),
        ['token 5', 'token 4'],
      );
      assert.ok(first.next);
      const second = await store.accessTokensOf(ANN, { limit: 2, before: first.next });
      assert.deepEqual(
        second.items.map((t) => t.name),
        ['token 3', 'token 2'],
      );
      const third = await store.accessTokensOf(ANN, { limit: 2, before: second.next });
      assert.deepEqual(
        third.items.map((t) => t.name),
        ['token 1'],
      );
      assert.equal(third.next, undefined);
      const bobs = await store.accessTokensOf(BOB, { limit: 10 });
      assert.deepEqual(bobs.items, [
        {
          publicId: bobs.items[0]!.publicId,
          subject: BOB,
          admin: true,
          name: 'token 9',
          createdAt: 9,
          expiresAt: 1009,
          lastUsedAt: null,
          lastUsedClient: null,
          revokedAt: null,
          scope: 'write',
        },
      ]);
      assert.ok(!JSON.stringify(bobs).includes('h-oidc'), 'the hash never leaves the store');
    });

    test('an account revokes only its own tokens, once', async () => {
      const anns = await store.createAccessToken(fresh(ANN, 1));
      const bobs = await store.createAccessToken(fresh(BOB, 2, { admin: true }));
      assert.equal(await store.revokeAccessToken(BOB, anns.publicId, 50), false, "another account's token");
      assert.equal(await store.revokeAccessToken(ANN, 'a_unknown', 50), false, 'unknown');
      assert.equal(await store.revokeAccessToken(ANN, anns.publicId, 50), true);
      assert.equal(await store.revokeAccessToken(ANN, anns.publicId, 60), false, 'already revoked');
      assert.equal((await store.accessTokensOf(ANN, { limit: 5 })).items[0]!.revokedAt, 50);
      assert.equal((await store.accessTokensOf(BOB, { limit: 5 })).items[0]!.revokedAt, null);
      assert.equal(await store.accessTokenByHash(`h-${ANN}-1`, 51), undefined, 'revoked: refused');
      assert.equal((await store.accessTokenByHash(`h-${BOB}-2`, 51))?.publicId, bobs.publicId);
    });

    test('the lookup by hash finds a live token and refuses an expired or unknown one', async () => {
      const t = await store.createAccessToken(fresh(ANN, 100));
      const found = await store.accessTokenByHash(`h-${ANN}-100`, 500);
      assert.equal(found?.publicId, t.publicId);
      assert.equal(found?.subject, ANN);
      assert.equal(found?.admin, false);
      assert.notEqual(await store.accessTokenByHash(`h-${ANN}-100`, 1099), undefined, 'just before expiry');
      assert.equal(await store.accessTokenByHash(`h-${ANN}-100`, 1100), undefined, 'at expiry');
      assert.equal(await store.accessTokenByHash(`h-${ANN}-10`, 500), undefined, 'a prefix of a hash');
      assert.equal(await store.accessTokenByHash('nothing', 500), undefined);
    });

    test('last use is written at most once a minute from one client, at once from another', async () => {
      const t = await store.createAccessToken(fresh(ANN, 1));
      assert.equal(await store.touchAccessToken(t.publicId, 100_000, '192.0.2.1'), true);
      assert.equal(await store.touchAccessToken(t.publicId, 130_000, '192.0.2.1'), false, 'within the minute');
      let listed = (await store.accessTokensOf(ANN, { limit: 1 })).items[0]!;
      assert.equal(listed.lastUsedAt, 100_000);
      assert.equal(listed.lastUsedClient, '192.0.2.1');
      assert.equal(await store.touchAccessToken(t.publicId, 140_000, '192.0.2.2'), true, 'another client');
      assert.equal(await store.touchAccessToken(t.publicId, 150_000, '192.0.2.2'), false);
      assert.equal(await store.touchAccessToken(t.publicId, 200_001, '192.0.2.3'), true);
      listed = (await store.accessTokensOf(ANN, { limit: 1 })).items[0]!;
      assert.equal(listed.lastUsedAt, 200_001);
      assert.equal(listed.lastUsedClient, '192.0.2.3');
      assert.equal(await store.touchAccessToken('a_unknown', 500_000, '192.0.2.3'), false);
    });
  });
}
