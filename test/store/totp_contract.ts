/**
 * The second-factor part of the store contract (docs/contract.md section 14): every Store passes
 * these, each test on a fresh store. Run by sqlite.test.ts and postgres.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { TotpFactor } from '../../src/domain/totp.ts';

const ADMIN = 'local:admin';
const HASHES = Array.from({ length: 10 }, (_, i) => `${i}`.repeat(64));
const factor = (more: Partial<TotpFactor> = {}): TotpFactor => ({
  sealedSecret: 'sealed-secret',
  lastStep: 100,
  recoveryHashes: HASHES,
  enrolledAt: 1_700_000_000_000,
  ...more,
});

export function totpContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract, second factor: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    test('a factor is stored once (the first confirmation wins), read back whole, and removed', async () => {
      assert.equal(await store.totpFactor(ADMIN), undefined);
      assert.equal(await store.createTotpFactor(ADMIN, factor()), true);
      assert.equal(await store.createTotpFactor(ADMIN, factor({ sealedSecret: 'another' })), false);
      assert.deepEqual(await store.totpFactor(ADMIN), factor());
      assert.equal(await store.totpFactor('local:other'), undefined);
      assert.equal(await store.deleteTotpFactor(ADMIN), true);
      assert.equal(await store.deleteTotpFactor(ADMIN), false);
      assert.equal(await store.totpFactor(ADMIN), undefined);
    });

    test('a step is accepted once and only after the last accepted one; without spend nothing changes', async () => {
      await store.createTotpFactor(ADMIN, factor());
      assert.equal(await store.spendTotpStep(ADMIN, 100, true), false, 'the confirming step');
      assert.equal(await store.spendTotpStep(ADMIN, 101, false), true);
      assert.equal((await store.totpFactor(ADMIN))?.lastStep, 100, 'not spent');
      assert.equal(await store.spendTotpStep(ADMIN, 101, true), true);
      assert.equal((await store.totpFactor(ADMIN))?.lastStep, 101);
      assert.equal(await store.spendTotpStep(ADMIN, 101, true), false, 'a replay');
      assert.equal(await store.spendTotpStep(ADMIN, 99, true), false, 'an older step');
      assert.equal(await store.spendTotpStep('local:nobody', 500, true), false);
    });

    test('of two sign-ins spending one step at once, exactly one succeeds', async () => {
      await store.createTotpFactor(ADMIN, factor());
      const both = await Promise.all([store.spendTotpStep(ADMIN, 102, true), store.spendTotpStep(ADMIN, 102, true)]);
      assert.deepEqual(both.sort(), [false, true]);
    });

    test('a recovery code is spent once, from the list as read; without spend nothing changes', async () => {
      await store.createTotpFactor(ADMIN, factor());
      const pick = HASHES[4] ?? '';
      assert.equal(await store.spendRecoveryCode(ADMIN, HASHES, pick, false), true);
      assert.deepEqual((await store.totpFactor(ADMIN))?.recoveryHashes, HASHES);
      const racing = await Promise.all([
        store.spendRecoveryCode(ADMIN, HASHES, pick, true),
        store.spendRecoveryCode(ADMIN, HASHES, pick, true),
      ]);
      assert.deepEqual(racing.sort(), [false, true], 'two spends of one read: one wins');
      const left = HASHES.filter((h) => h !== pick);
      assert.deepEqual((await store.totpFactor(ADMIN))?.recoveryHashes, left);
      for (const h of left)
        assert.equal(
          await store.spendRecoveryCode(ADMIN, (await store.totpFactor(ADMIN))?.recoveryHashes ?? [], h, true),
          true,
        );
      assert.deepEqual((await store.totpFactor(ADMIN))?.recoveryHashes, [], 'all used');
    });
  });
}
