/**
 * Device credentials in the store contract (docs/contract.md section 16): the lookup of a presented
 * credential, rotation and its overlap, racing rotations, an administrator's ask, the expiry's one
 * record, and the upload's check of the credential version. Run by sqlite.test.ts and
 * postgres.test.ts, each test on a fresh store.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { sha256Hex } from '../../src/crypto/random.ts';

const admin = { subject: 'local:admin', admin: true };
const bob = { subject: 'oidc:bob', admin: false };
const MINUTE = 60_000;
const ENROLLED = 1_000;
/** How long a replaced credential's hash is kept in these tests. */
const KEEP = 60 * MINUTE;

export function credentialsContract(name: string, open: () => Promise<Store>): void {
  describe(`store credentials: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    async function device(id: string, owner = 'oidc:ann') {
      await store.createEnrollToken({
        hash: `tok-${id}`,
        owner,
        createdBy: 'local:admin',
        createdAt: ENROLLED,
        expiresAt: ENROLLED + 60 * MINUTE,
      });
      assert.ok(
        await store.enrollDevice({
          tokenHash: `tok-${id}`,
          now: ENROLLED,
          deviceId: id,
          name: id,
          credentialHash: `c0-${id}`,
        }),
      );
    }
    const rotation = (id: string, replaced: string, hash: string, at: number) => ({
      device: id,
      replaced,
      hash,
      salt: `salt-${hash}`,
      at,
      until: at + 10 * MINUTE,
      keepUntil: at + KEEP,
    });

    test('the enrollment credential, then a rotation: the old one works until the new one is first used, or 10 minutes', async () => {
      await device('d1');
      const found = await store.deviceByCredential('c0-d1', 2_000);
      assert.equal(found?.id, 'd1');
      assert.equal(found?.credentialHash, 'c0-d1');
      assert.equal(found?.superseded, false);
      assert.deepEqual(found?.credential, {
        issuedAt: ENROLLED,
        rotatedAt: null,
        rotationAskedAt: null,
        previousUntil: null,
        expiredAt: null,
      });
      assert.deepEqual(await store.deviceCredential('d1'), found?.credential);
      assert.equal(await store.deviceByCredential('c-unknown', 2_000), undefined);

      const before = (await store.deviceByCredential('c0-d1', 2_000))?.version ?? -1;
      assert.equal(await store.rotateCredential(rotation('d1', 'c0-d1', 'c1-d1', 5_000)), true);
      const old = await store.deviceByCredential('c0-d1', 6_000);
      assert.equal(old?.superseded, true, 'the old one, in its overlap');
      assert.equal(old?.credential.previousUntil, 5_000 + 10 * MINUTE);
      assert.ok((old?.version ?? -1) > before, 'a rotation changes the version');
      assert.deepEqual(await store.rotationOf('d1', 'c0-d1', 6_000), { salt: 'salt-c1-d1', hash: 'c1-d1' });
      assert.equal((await store.deviceCredential('d1'))?.issuedAt, 5_000, 'issued by the rotation');
      assert.equal((await store.deviceCredential('d1'))?.rotatedAt, 5_000);

      const used = await store.deviceByCredential('c1-d1', 7_000);
      assert.equal(used?.superseded, false);
      assert.equal(used?.credential.previousUntil, null, 'its first use ends the overlap');
      assert.ok((used?.version ?? -1) > (old?.version ?? -1), 'and changes the version');
      assert.equal(await store.deviceByCredential('c0-d1', 7_001), undefined, 'the old one is refused from then on');
      assert.equal(await store.rotationOf('d1', 'c0-d1', 7_001), undefined);
      assert.equal((await store.deviceByCredential('c1-d1', 7_002))?.version, used?.version, 'used once, changed once');

      // Unused, the new credential leaves the old one working for 10 minutes exactly.
      await device('d2');
      assert.equal(await store.rotateCredential(rotation('d2', 'c0-d2', 'c1-d2', 5_000)), true);
      assert.equal((await store.deviceByCredential('c0-d2', 5_000 + 10 * MINUTE - 1))?.id, 'd2');
      assert.equal(await store.deviceByCredential('c0-d2', 5_000 + 10 * MINUTE), undefined);
      assert.equal(await store.rotationOf('d2', 'c0-d2', 5_000 + 10 * MINUTE), undefined);

      // The sweep clears what the overlap kept (the replaced hash, the salt) once it has passed, not before.
      assert.equal(await store.endOverlaps(5_000 + 10 * MINUTE - 1, 500), 0);
      assert.ok((await store.deviceCredential('d2'))?.previousUntil);
      assert.equal(await store.endOverlaps(5_000 + 10 * MINUTE, 500), 1);
      assert.equal((await store.deviceCredential('d2'))?.previousUntil, null);
      assert.equal(await store.endOverlaps(5_000 + 10 * MINUTE, 500), 0, 'nothing left');
      assert.equal((await store.deviceByCredential('c1-d2', 5_000 + 11 * MINUTE))?.id, 'd2', 'the new one works');
      assert.equal(await store.deviceByCredential('c0-d2', 5_000 + 11 * MINUTE), undefined);
    });

    test('a rotation is keyed by the credential presented: the replaced one, or an unknown one, rotates nothing', async () => {
      await device('d1');
      assert.equal(await store.rotateCredential(rotation('d1', 'c0-d1', 'c1-d1', 5_000)), true);
      assert.equal(await store.rotateCredential(rotation('d1', 'c0-d1', 'c2-d1', 5_001)), false);
      assert.equal(await store.rotateCredential(rotation('d1', 'c-other', 'c3-d1', 5_002)), false);
      assert.equal(await store.deviceByCredential('c2-d1', 5_003), undefined);
      assert.equal((await store.deviceByCredential('c1-d1', 5_003))?.id, 'd1');
      // Rotating the new one replaces it in turn; the first credential is gone for good.
      assert.equal(await store.rotateCredential(rotation('d1', 'c1-d1', 'c4-d1', 6_000)), true);
      assert.equal(await store.deviceByCredential('c0-d1', 6_001), undefined);
      assert.equal((await store.deviceByCredential('c1-d1', 6_001))?.superseded, true);
    });

    test('racing rotations with one credential: exactly one replaces it; a revoked device rotates nothing', async () => {
      await device('d1');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.rotateCredential(rotation('d1', 'c0-d1', `c1-${i}`, 5_000 + i))),
      );
      assert.equal(results.filter(Boolean).length, 1, `one winner: ${results.join(',')}`);
      const winner = `c1-${results.indexOf(true)}`;
      assert.equal((await store.rotationOf('d1', 'c0-d1', 5_100))?.hash, winner, 'the losers read the winner');
      assert.equal((await store.deviceByCredential('c0-d1', 5_100))?.superseded, true, 'the old one, in its overlap');
      const working = [];
      for (let i = 0; i < 12; i++) if (await store.deviceByCredential(`c1-${i}`, 5_100)) working.push(`c1-${i}`);
      assert.deepEqual(working, [winner], 'one new credential works');
      assert.equal(await store.deviceByCredential('c0-d1', 5_101), undefined, 'and, used, it ends the overlap');

      await device('d3');
      assert.equal(await store.revokeDevice(admin, 'd3', 2_000), true);
      assert.equal(await store.rotateCredential(rotation('d3', 'c0-d3', 'c1-d3', 5_000)), false);
      assert.equal(await store.askRotation(admin, 'd3', 5_000), 'revoked');
    });

    test("an administrator's ask and the expiry's record: each changed once, cleared by the rotation; scoped", async () => {
      await device('d1');
      await device('b1', 'oidc:bob');
      const before = (await store.deviceByCredential('c0-d1', 2_000))?.version ?? -1;
      assert.equal(await store.askRotation(admin, 'd1', 3_000), 'asked');
      const asked = await store.deviceByCredential('c0-d1', 3_001);
      assert.equal(asked?.credential.rotationAskedAt, 3_000);
      assert.ok((asked?.version ?? -1) > before);
      assert.equal(await store.askRotation(bob, 'd1', 3_000), 'unknown', "another owner's device");
      assert.equal(await store.askRotation(bob, 'b1', 3_000), 'asked');
      assert.equal(await store.askRotation(admin, 'nope', 3_000), 'unknown');
      assert.equal(await store.rotateCredential(rotation('d1', 'c0-d1', 'c1-d1', 4_000)), true);
      assert.equal((await store.deviceByCredential('c1-d1', 4_001))?.credential.rotationAskedAt, null);

      // The expiry is recorded once per credential; a rotation starts the new one's afresh.
      await device('d4');
      assert.equal(await store.noteCredentialExpired('d4', 9_000), true);
      assert.equal(await store.noteCredentialExpired('d4', 9_001), false);
      assert.equal((await store.deviceByCredential('c0-d4', 9_002))?.credential.expiredAt, 9_000);
      assert.equal(await store.rotateCredential(rotation('d4', 'c0-d4', 'c1-d4', 10_000)), true);
      assert.equal((await store.deviceCredential('d4'))?.expiredAt, null);
      assert.equal(await store.noteCredentialExpired('d4', 11_000), true);
    });

    test('reuse is theft: a replaced credential is kept until keepUntil, its reuse makes the device pending once, and the sweep forgets it', async () => {
      await device('d1');
      assert.equal(await store.replacedCredential('c0-d1', 2_000), undefined, 'the current one is not a replaced one');
      assert.equal(await store.rotateCredential(rotation('d1', 'c0-d1', 'c1-d1', 5_000)), true);
      // Kept from the rotation on, through the overlap and after it; never the new one.
      for (const at of [5_000, 5_001, 5_000 + 10 * MINUTE, 5_000 + KEEP - 1])
        assert.deepEqual(await store.replacedCredential('c0-d1', at), {
          device: 'd1',
          owner: 'oidc:ann',
          replacedAt: 5_000,
          overlapUntil: 5_000 + 10 * MINUTE,
          pendingSince: null,
          revokedAt: null,
        });
      assert.equal(await store.replacedCredential('c0-d1', 5_000 + KEEP), undefined, 'kept until keepUntil');
      assert.equal(await store.replacedCredential('c1-d1', 6_000), undefined);
      // A rotation that replaces nothing keeps nothing.
      assert.equal(await store.rotateCredential(rotation('d1', 'c-other', 'c9-d1', 5_500)), false);
      assert.equal(await store.replacedCredential('c-other', 6_000), undefined);

      // A rotation asked again in its overlap is audited once, however many ask at once.
      const reissued = await Promise.all(Array.from({ length: 8 }, () => store.noteCredentialReissued('c0-d1', 5_100)));
      assert.equal(reissued.filter(Boolean).length, 1, `one reissue recorded: ${reissued.join(',')}`);
      assert.equal(await store.noteCredentialReissued('c0-d1', 5_200), false);
      assert.equal(await store.noteCredentialReissued('c-never-replaced', 5_200), false);

      const before = (await store.deviceByCredential('c1-d1', 700_000))?.version ?? -1;
      // Many at once (a thief's flood): one transition, one note.
      const made = await Promise.all(Array.from({ length: 8 }, () => store.noteCredentialReused('d1', 700_001)));
      assert.equal(made.filter(Boolean).length, 1, `one transition: ${made.join(',')}`);
      const pending = await store.deviceByCredential('c1-d1', 700_002);
      assert.equal(pending?.pendingSince, 700_001);
      assert.equal(pending?.pendingReason, 'credential reused');
      assert.ok((pending?.version ?? -1) > before, 'the version changes: no remembered lookup outlives it');
      assert.equal((await store.replacedCredential('c0-d1', 700_003))?.pendingSince, 700_001);
      const shown = await store.deviceVisibleTo(admin, 'd1');
      assert.equal(shown?.pendingReason, 'credential reused');
      const listed = await store.devicesVisibleTo(admin, { limit: 10 }, { status: 'pending', staleBefore: 0 });
      assert.deepEqual(
        listed.items.map((d) => [d.id, d.pendingReason]),
        [['d1', 'credential reused']],
      );

      // Approval keeps the current credential and clears the reason; a new reuse makes it pending again.
      assert.equal(await store.approveDevice(admin, 'd1'), true);
      const approved = await store.deviceByCredential('c1-d1', 700_004);
      assert.equal(approved?.pendingSince, null);
      assert.equal(approved?.pendingReason, null);
      assert.equal(await store.noteCredentialReused('d1', 700_005), true);
      assert.equal(await store.rejectDevice(admin, 'd1', 700_006), true, 'rejected: revoked');
      assert.equal(await store.noteCredentialReused('d1', 700_007), false, 'a revoked device is never made pending');
      assert.equal((await store.replacedCredential('c0-d1', 700_008))?.revokedAt, 700_006);

      // An enrollment's wait has no reason.
      await device('d2');
      assert.equal((await store.deviceByCredential('c0-d2', 2_000))?.pendingReason, null);

      // The new credential's first use ends the replaced one's overlap then, as its row says.
      assert.equal(await store.rotateCredential(rotation('d2', 'c0-d2', 'c1-d2', 6_000)), true);
      assert.equal((await store.replacedCredential('c0-d2', 6_500))?.overlapUntil, 6_000 + 10 * MINUTE);
      assert.equal((await store.deviceByCredential('c1-d2', 7_000))?.id, 'd2');
      assert.equal((await store.replacedCredential('c0-d2', 7_500))?.overlapUntil, 7_000);
      assert.equal((await store.deviceByCredential('c1-d2', 8_000))?.id, 'd2');
      assert.equal((await store.replacedCredential('c0-d2', 8_500))?.overlapUntil, 7_000, 'once');

      // The sweep forgets those kept until now or before, by batches.
      assert.equal(await store.endReplaced(5_000 + KEEP - 1, 500), 0);
      assert.equal(await store.endReplaced(6_000 + KEEP, 1), 1);
      assert.equal(await store.endReplaced(6_000 + KEEP, 500), 1);
      assert.equal(await store.endReplaced(6_000 + KEEP, 500), 0, 'nothing left');
    });

    test('an upload is stored only while the credential version its lookup read holds', async () => {
      await device('d1');
      const run = (id: string, credentialVersion?: number) => {
        const body = new TextEncoder().encode(id);
        return {
          device: 'd1',
          id,
          contentType: 'text/plain',
          privacy: 'full' as const,
          size: body.byteLength,
          uploadedAt: 2_000,
          body,
          sha256: sha256Hex(body),
          credentialVersion,
        };
      };
      const version = (await store.deviceByCredential('c0-d1', 2_000))?.version ?? -1;
      assert.equal(await store.putRun(run('r1', version)), 'stored');
      assert.equal(await store.putRun(run('r1', version)), 'already-stored');
      assert.equal(await store.askRotation(admin, 'd1', 2_500), 'asked');
      assert.equal(await store.putRun(run('r2', version)), 'device-unknown', 'the version changed: refused');
      assert.equal(await store.putRun(run('r1', version)), 'device-unknown', 'a retry too');
      const now = (await store.deviceByCredential('c0-d1', 2_600))?.version;
      assert.equal(await store.putRun(run('r2', now)), 'stored', 'with the version read again');
      assert.equal(await store.putRun(run('r3')), 'stored', 'without one: not checked');
      // Arriving together (PostgreSQL stores them in one statement): each judged by its own version.
      assert.deepEqual(
        await Promise.all([store.putRun(run('r4', now)), store.putRun(run('r5', version)), store.putRun(run('r6'))]),
        ['stored', 'device-unknown', 'stored'],
      );
      assert.equal((await store.runsVisibleTo(admin, { limit: 10 }, { device: 'd1' })).items.length, 5);
    });
  });
}
