/**
 * The store contract: every Store implementation must pass these, each test on a fresh store.
 * `open` returns a new, empty store.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { DeviceFilter } from '../../src/domain/devices.ts';
import type { RunFilter } from '../../src/domain/runs.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import { CHUNK_SIZE } from '../../src/store/runs.ts';
import { readAll } from '../support/read_all.ts';
import { note } from '../../src/events/note.ts';
import { EVENTS } from '../../src/events/catalogue.ts';

const admin: Viewer = { subject: 'local:admin', admin: true };
const ann: Viewer = { subject: 'oidc:ann', admin: false };
const bob: Viewer = { subject: 'oidc:bob', admin: false };

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export function storeContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    async function device(owner: string, id: string, at = 1000) {
      const tokenHash = `tok-${id}`;
      await store.createEnrollToken({
        hash: tokenHash,
        owner,
        createdBy: 'local:admin',
        createdAt: at,
        expiresAt: at + 1000,
      });
      const d = await store.enrollDevice({
        tokenHash,
        now: at,
        deviceId: id,
        name: `name-${id}`,
        credentialHash: `cred-${id}`,
      });
      assert.ok(d);
      return d;
    }
    async function run(deviceId: string, id: string, text: string, at = 2000) {
      const body = new TextEncoder().encode(text);
      return store.putRun({
        device: deviceId,
        id,
        contentType: 'text/plain',
        privacy: 'redacted',
        size: body.length,
        uploadedAt: at,
        body,
        sha256: sha(body),
      });
    }

    test('settings: setSettingIfAbsent keeps the first value', async () => {
      assert.equal(await store.getSetting('k'), undefined);
      assert.equal(await store.setSettingIfAbsent('k', 'one'), 'one');
      assert.equal(await store.setSettingIfAbsent('k', 'two'), 'one');
      await store.setSetting('k', 'three');
      assert.equal(await store.getSetting('k'), 'three');
    });

    test('settings: replaceSetting writes only over the value expected (the control key, issue 36)', async () => {
      assert.equal(await store.replaceSetting('k', 'none', 'one'), false, 'no such setting');
      assert.equal(await store.getSetting('k'), undefined);
      await store.setSetting('k', 'one');
      assert.equal(await store.replaceSetting('k', 'two', 'three'), false, 'another value is held');
      assert.equal(await store.getSetting('k'), 'one');
      assert.equal(await store.replaceSetting('k', 'one', 'two'), true);
      assert.equal(await store.getSetting('k'), 'two');
    });

    test('password hashes: create only when absent, set always', async () => {
      assert.equal(await store.passwordHash('admin'), undefined);
      assert.equal(await store.createPasswordHash('admin', 'h1'), true);
      assert.equal(await store.createPasswordHash('admin', 'h2'), false);
      assert.equal(await store.passwordHash('admin'), 'h1');
      await store.setPasswordHash('admin', 'h3');
      assert.equal(await store.passwordHash('admin'), 'h3');
    });

    test('login failures: counted per client within the window, cleared on success', async () => {
      await store.recordLoginFailure('a', 100);
      await store.recordLoginFailure('a', 200);
      await store.recordLoginFailure('b', 200);
      assert.equal(await store.loginFailuresSince('a', 0), 2);
      assert.equal(await store.loginFailuresSince('a', 150), 1);
      await store.clearLoginFailures('a');
      assert.equal(await store.loginFailuresSince('a', 0), 0);
      assert.equal(await store.loginFailuresSince('b', 0), 1);
    });

    test('login failures: a failure from any address prunes failures over an hour old of every address', async () => {
      const hour = 3_600_000;
      await store.recordLoginFailure('once-1', 1_000);
      await store.recordLoginFailure('once-2', 2_000);
      await store.recordLoginFailure('recent', 1_000 + hour);
      await store.recordLoginFailure('other', 2_000 + hour + 1);
      assert.equal(await store.loginFailuresSince('once-1', 0), 0, 'pruned by another address');
      assert.equal(await store.loginFailuresSince('once-2', 0), 0);
      assert.equal(await store.loginFailuresSince('recent', 0), 1, 'within the hour: kept');
    });

    test('the throttle: failures of every address counted together; a known client is remembered for its time', async () => {
      await store.recordLoginFailure('a', 1_000);
      await store.recordLoginFailure('b', 2_000);
      await store.recordLoginFailure('c', 3_000);
      assert.equal(await store.accountLoginFailuresSince(0), 3);
      assert.equal(await store.accountLoginFailuresSince(1_500), 2);
      assert.equal(await store.knownLoginClient('a', 0), false);
      await store.rememberLoginClient('a', 5_000, 0);
      assert.equal(await store.knownLoginClient('a', 4_999), true);
      assert.equal(await store.knownLoginClient('a', 5_000), false, 'too long ago');
      await store.rememberLoginClient('b', 9_000, 6_000);
      assert.equal(await store.knownLoginClient('a', 0), false, 'forgotten');
    });

    test('sign-in turns: one holder per client at a time; a lapsed turn passes on; only the holder releases', async () => {
      assert.equal(await store.takeLoginTurn('a', 'h1', 0, 100), true);
      assert.equal(await store.takeLoginTurn('a', 'h2', 50, 150), false, 'held by h1');
      assert.equal(await store.takeLoginTurn('b', 'h2', 50, 150), true, 'another client has its own turn');
      await store.releaseLoginTurn('a', 'h2');
      assert.equal(await store.takeLoginTurn('a', 'h3', 99, 200), false, 'h2 cannot release what h1 holds');
      assert.equal(await store.takeLoginTurn('a', 'h3', 100, 200), true, 'lapsed at its end');
      await store.releaseLoginTurn('a', 'h1');
      assert.equal(await store.takeLoginTurn('a', 'h4', 150, 300), false, 'h1 no longer holds it');
      await store.releaseLoginTurn('a', 'h3');
      assert.equal(await store.takeLoginTurn('a', 'h4', 150, 300), true);
    });

    test('concurrent takes of one sign-in turn: one holder', async () => {
      const taken = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.takeLoginTurn('race', `h${i}`, 1, 1000)),
      );
      assert.equal(taken.filter(Boolean).length, 1);
    });

    test('accounts: recorded at sign-in, most recent first', async () => {
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann', lastSignInAt: 1, admin: false });
      await store.recordSignIn({ subject: 'oidc:bob', display: 'Bob', lastSignInAt: 2, admin: false });
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann B', lastSignInAt: 3, admin: false });
      assert.deepEqual(await store.knownAccounts(10), [
        { subject: 'oidc:ann', display: 'Ann B', lastSignInAt: 3 },
        { subject: 'oidc:bob', display: 'Bob', lastSignInAt: 2 },
      ]);
    });

    test('enrollment: a token works once, not after expiry, and the device belongs to its owner', async () => {
      await store.createEnrollToken({
        hash: 't1',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: 0,
        expiresAt: 100,
      });
      assert.equal(
        await store.enrollDevice({ tokenHash: 't1', now: 100, deviceId: 'd0', name: 'n', credentialHash: 'c0' }),
        undefined,
        'expired at expiresAt',
      );
      const d = await store.enrollDevice({ tokenHash: 't1', now: 99, deviceId: 'd1', name: 'n', credentialHash: 'c1' });
      assert.equal(d?.owner, 'oidc:ann');
      assert.equal(d?.enrolledAt, 99);
      assert.equal(d?.enrolledBy, 'local:admin', 'the device page says who minted its token');
      assert.equal(
        await store.enrollDevice({ tokenHash: 't1', now: 99, deviceId: 'd2', name: 'n', credentialHash: 'c2' }),
        undefined,
        'used',
      );
      assert.equal(
        await store.enrollDevice({ tokenHash: 'nope', now: 1, deviceId: 'd3', name: 'n', credentialHash: 'c3' }),
        undefined,
        'unknown',
      );
      assert.equal((await store.deviceByCredential('c1', 100))?.id, 'd1');
      assert.equal(await store.deviceByCredential('c2', 100), undefined);
    });

    test('concurrent enrollments with one token create one device', async () => {
      await store.createEnrollToken({
        hash: 'race',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: 0,
        expiresAt: 1e12,
      });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.enrollDevice({ tokenHash: 'race', now: 1, deviceId: `r${i}`, name: 'n', credentialHash: `rc${i}` }),
        ),
      );
      assert.equal(results.filter(Boolean).length, 1);
    });

    test('a token with uses N enrolls exactly N devices, each with its name, note and privacy ceiling', async () => {
      const minted = await store.createEnrollToken({
        hash: 'line',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: 0,
        expiresAt: 1000,
        uses: 3,
        name: 'Line 4 scanner',
        note: 'bench 4',
        maxPrivacy: 'redacted',
      });
      assert.match(minted.publicId, /^t_[A-Za-z0-9_-]{16}$/);
      assert.equal(minted.usesLeft, 3);
      const enroll = (i: number) =>
        store.enrollDevice({
          tokenHash: 'line',
          now: 10,
          deviceId: `l${i}`,
          name: `own-${i}`,
          credentialHash: `lc${i}`,
        });
      const devices = [await enroll(0), await enroll(1), await enroll(2)];
      assert.equal(await enroll(3), undefined, 'used up after three');
      for (const d of devices) {
        assert.equal(d?.name, 'Line 4 scanner', "the token's name overrides the device's own");
        assert.equal(d?.owner, 'oidc:ann');
        assert.equal(d?.enrolledBy, 'local:admin');
        assert.equal(d?.enrollNote, 'bench 4');
        assert.equal(d?.maxPrivacy, 'redacted');
      }
      await store.createEnrollToken({
        hash: 'plain',
        owner: 'oidc:ann',
        createdBy: 'oidc:bob',
        createdAt: 0,
        expiresAt: 1000,
      });
      const plain = await store.enrollDevice({
        tokenHash: 'plain',
        now: 10,
        deviceId: 'p',
        name: 'own',
        credentialHash: 'pc',
      });
      assert.equal(plain?.name, 'own', 'without a name on the token, the device names itself');
      assert.equal(plain?.enrollNote, '');
      assert.equal(plain?.maxPrivacy, 'full');
      assert.equal(plain?.enrolledBy, 'oidc:bob');
      assert.equal((await store.outstandingEnrollTokens({ limit: 10 }, 20)).items.length, 0, 'both used up');
    });

    test('concurrent enrollments never exceed the uses of a token', async () => {
      await store.createEnrollToken({
        hash: 'many',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: 0,
        expiresAt: 1e12,
        uses: 3,
      });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.enrollDevice({ tokenHash: 'many', now: 1, deviceId: `m${i}`, name: 'n', credentialHash: `mc${i}` }),
        ),
      );
      assert.equal(results.filter(Boolean).length, 3);
      assert.equal((await store.devicesVisibleTo(admin, { limit: 50 })).items.length, 3);
    });

    test('revoked, expired and used-up tokens enroll nothing; revoke takes only outstanding tokens', async () => {
      const mint = (hash: string, expiresAt = 1000, uses = 2) =>
        store.createEnrollToken({ hash, owner: 'oidc:ann', createdBy: 'local:admin', createdAt: 0, expiresAt, uses });
      const enroll = (hash: string, id: string, now = 10) =>
        store.enrollDevice({ tokenHash: hash, now, deviceId: id, name: 'n', credentialHash: `c-${id}` });
      const revoked = await mint('revoked');
      assert.equal(await store.revokeEnrollToken(revoked.publicId, 5), true);
      assert.equal(await store.revokeEnrollToken(revoked.publicId, 6), false, 'already revoked');
      assert.equal(await enroll('revoked', 'x1'), undefined, 'revoked');
      await mint('expired', 100);
      assert.equal(await enroll('expired', 'x2', 100), undefined, 'expired');
      const used = await mint('used', 1000, 1);
      assert.ok(await enroll('used', 'x3'));
      assert.equal(await enroll('used', 'x4'), undefined, 'used up');
      assert.equal(await store.revokeEnrollToken(used.publicId, 20), false, 'a used-up token is not outstanding');
      const expired = await mint('expired-2', 100);
      assert.equal(await store.revokeEnrollToken(expired.publicId, 100), false, 'nor an expired one');
      assert.equal(await store.revokeEnrollToken('t_unknown', 20), false, 'unknown');
      const partly = await mint('partly', 1000, 2);
      assert.ok(await enroll('partly', 'x5'));
      assert.equal(await store.revokeEnrollToken(partly.publicId, 20), true, 'a token with a use left is outstanding');
      assert.equal(await enroll('partly', 'x6', 30), undefined, 'and enrolls nothing once revoked');
      assert.deepEqual(
        (await store.outstandingEnrollTokens({ limit: 10 }, 100)).items,
        [],
        'the expired ones are not listed',
      );
    });

    test('outstanding tokens: uses left, unexpired, unrevoked; newest first in keyset pages', async () => {
      const mint = (hash: string, createdAt: number, expiresAt = 10_000, uses = 1) =>
        store.createEnrollToken({ hash, owner: 'oidc:ann', createdBy: 'local:admin', createdAt, expiresAt, uses });
      const t1 = await mint('o1', 100);
      const t2 = await mint('o2', 200, 10_000, 5);
      await mint('o3', 300, 400);
      const t4 = await mint('o4', 400);
      const t5 = await mint('o5', 400);
      const t6 = await mint('o6', 500);
      await store.revokeEnrollToken(t6.publicId, 600);
      await mint('o7', 600);
      await store.enrollDevice({ tokenHash: 'o7', now: 700, deviceId: 'o7d', name: 'n', credentialHash: 'o7c' });
      await store.enrollDevice({ tokenHash: 'o2', now: 700, deviceId: 'o2d', name: 'n', credentialHash: 'o2c' });
      const sameMs = [t4, t5]
        .map((t) => t.publicId)
        .sort()
        .reverse();
      const expected = [...sameMs, t2.publicId, t1.publicId];
      const all = await store.outstandingEnrollTokens({ limit: 10 }, 800);
      assert.deepEqual(
        all.items.map((t) => t.publicId),
        expected,
      );
      assert.equal(all.next, undefined);
      const t2Listed = all.items.find((t) => t.publicId === t2.publicId);
      assert.deepEqual(t2Listed, { ...t2, usesLeft: 4 }, 'the record as minted, one use taken');
      const walked: string[] = [];
      let before: string | undefined;
      do {
        const p = await store.outstandingEnrollTokens({ limit: 1, before }, 800);
        walked.push(...p.items.map((t) => t.publicId));
        before = p.next;
      } while (before !== undefined);
      assert.deepEqual(walked, expected, 'pages of one walk the whole list in order');
      const firstTwo = await store.outstandingEnrollTokens({ limit: 2 }, 800);
      assert.equal(firstTwo.next, sameMs[1], 'the cursor is the public id of the last row');
      assert.deepEqual((await store.outstandingEnrollTokens({ limit: 10 }, 10_000)).items, [], 'all expired at 10,000');
      // The list's total counts what the list holds, stopping one past the count asked for.
      assert.equal(await store.countOutstandingEnrollTokens(800, 10), 4);
      assert.equal(await store.countOutstandingEnrollTokens(800, 2), 3, 'more than two: two plus one');
      assert.equal(await store.countOutstandingEnrollTokens(350, 10), 5, 'o3 too, until it expires at 400');
      assert.equal(await store.countOutstandingEnrollTokens(10_000, 10), 0);
    });

    test('devices are scoped: a non-admin sees only its own; admin sees all; newest first; keyset pages', async () => {
      for (let i = 0; i < 5; i++) await device(i % 2 ? 'oidc:bob' : 'oidc:ann', `d${i}`, 1000 + i);
      const all = await store.devicesVisibleTo(admin, { limit: 2 });
      assert.deepEqual(
        all.items.map((d) => d.id),
        ['d4', 'd3'],
      );
      assert.ok(all.next);
      const second = await store.devicesVisibleTo(admin, { before: all.next, limit: 2 });
      assert.deepEqual(
        second.items.map((d) => d.id),
        ['d2', 'd1'],
      );
      const last = await store.devicesVisibleTo(admin, { before: second.next, limit: 2 });
      assert.deepEqual(
        last.items.map((d) => d.id),
        ['d0'],
      );
      assert.equal(last.next, undefined);
      assert.deepEqual(
        (await store.devicesVisibleTo(ann, { limit: 10 })).items.map((d) => d.id),
        ['d4', 'd2', 'd0'],
      );
      assert.equal(await store.deviceVisibleTo(ann, 'd1'), undefined);
      assert.equal((await store.deviceVisibleTo(bob, 'd1'))?.id, 'd1');
    });

    test('revoke: scoped, once, and the revoked device stores no more runs', async () => {
      await device('oidc:ann', 'da');
      assert.equal(await store.revokeDevice(bob, 'da', 5), false, 'out of scope');
      assert.equal(await store.revokeDevice(admin, 'da', 5), true);
      assert.equal(await store.revokeDevice(admin, 'da', 6), false, 'already revoked');
      assert.equal((await store.deviceVisibleTo(admin, 'da'))?.revokedAt, 5);
      assert.equal(await run('da', 'r1', 'x'), 'device-unknown');
    });

    test('runs: stored byte for byte; idempotent for identical bytes; conflict for other bytes', async () => {
      await device('oidc:ann', 'dr');
      const bytes = new Uint8Array([0, 255, 1, 128]);
      const put = () =>
        store.putRun({
          device: 'dr',
          id: 'r',
          contentType: 'application/x-bin',
          privacy: 'minimal',
          size: 4,
          uploadedAt: 7,
          body: bytes,
          sha256: sha(bytes),
          receipt: { client: '0.1.0', rules: `sha256:${'b'.repeat(64)}`, counts: { email: 3 } },
        });
      assert.equal(await store.runStored('dr', 'r'), false, 'not yet');
      assert.equal(await put(), 'stored');
      assert.equal(await store.runStored('dr', 'r'), true, 'unscoped: whoever owns the device');
      assert.equal(await store.runStored('dr', 'other'), false);
      assert.equal(await store.runStored('dx-none', 'r'), false);
      assert.equal(await put(), 'already-stored');
      assert.equal(await run('dr', 'r', 'other'), 'conflict');
      const stored = await store.runVisibleTo(ann, 'dr', 'r');
      assert.deepEqual([...((await readAll(stored)) ?? [])], [0, 255, 1, 128]);
      assert.equal(stored?.contentType, 'application/x-bin');
      assert.equal(stored?.privacy, 'minimal');
      assert.equal(stored?.uploadedAt, 7);
      assert.deepEqual(stored?.receipt, { client: '0.1.0', rules: `sha256:${'b'.repeat(64)}`, counts: { email: 3 } });
      assert.equal(await store.runVisibleTo(bob, 'dr', 'r'), undefined);
      assert.equal((await store.devicesVisibleTo(admin, { limit: 1 })).items[0]?.lastUploadAt, 7);
    });

    test('level check: unchecked until recorded; flagged when a count is above zero; the flagged filter, scoped', async () => {
      await device('oidc:ann', 'dl1');
      await device('oidc:bob', 'dl2');
      for (const [d, id, at] of [
        ['dl1', 'a', 1],
        ['dl1', 'b', 2],
        ['dl1', 'c', 3],
        ['dl2', 'd', 4],
      ] as const)
        assert.equal(await run(d, id, `body ${id}`, 2000 + at), 'stored');
      assert.equal((await store.runVisibleTo(ann, 'dl1', 'a'))?.findings, null);
      assert.equal(await store.recordLevelCheck('dl1', 'a', { email: 2, ipv4: 1 }), true);
      assert.equal(await store.recordLevelCheck('dl1', 'b', {}), true);
      assert.equal(await store.recordLevelCheck('dl2', 'd', { text_field: 1 }), true);
      assert.equal(await store.recordLevelCheck('dl1', 'gone', { email: 1 }), false);
      const a = await store.runVisibleTo(ann, 'dl1', 'a');
      assert.deepEqual([a?.flagged, a?.findings], [true, { email: 2, ipv4: 1 }]);
      const b = await store.runVisibleTo(ann, 'dl1', 'b');
      assert.deepEqual([b?.flagged, b?.findings], [false, {}]);
      const ids = async (viewer: typeof admin, flagged: boolean, before?: string) =>
        (await store.runsVisibleTo(viewer, { limit: 10, before }, { flagged })).items.map(
          (r) => `${r.id}:${r.flagged}`,
        );
      assert.deepEqual(await ids(admin, true), ['d:true', 'a:true']);
      assert.deepEqual(await ids(ann, true), ['a:true']);
      assert.deepEqual(await ids(ann, false), ['c:false', 'b:false']);
      const plain = await store.runsVisibleTo(admin, { limit: 10 });
      assert.deepEqual(
        plain.items.map((r) => `${r.id}:${r.flagged}`),
        ['d:true', 'c:false', 'b:false', 'a:true'],
      );
      const page = await store.runsVisibleTo(admin, { limit: 1 }, { flagged: true });
      assert.ok(page.next);
      assert.deepEqual(await ids(admin, true, page.next), ['a:true']);
      assert.deepEqual(
        (await store.runsVisibleTo(admin, { limit: 10 }, { flagged: true, device: 'dl1' })).items.map((r) => r.id),
        ['a'],
      );
    });

    test('uploads at once each get their own answer: stored, already stored, conflict, refused', async () => {
      await device('oidc:ann', 'dc');
      await device('oidc:ann', 'dx');
      await store.revokeDevice(admin, 'dx', 3);
      const answers = await Promise.all([
        run('dc', 'a', 'one'),
        run('dc', 'a', 'one'),
        run('dc', 'b', 'two'),
        run('dc', 'b', 'not two'),
        run('dx', 'c', 'three'),
        ...Array.from({ length: 40 }, (_, i) => run('dc', `many-${i}`, `body ${i}`)),
      ]);
      assert.deepEqual(answers.slice(0, 5).sort(), [
        'already-stored',
        'conflict',
        'device-unknown',
        'stored',
        'stored',
      ]);
      assert.ok(answers.slice(5).every((a) => a === 'stored'));
      assert.equal((await store.countsVisibleTo(ann)).runs, 42);
      const b = await store.runVisibleTo(ann, 'dc', 'b');
      const stored = Buffer.from((await readAll(b)) ?? []).toString();
      assert.ok(stored === 'two' || stored === 'not two', 'one of the two bodies, whole');
      assert.equal(await store.runVisibleTo(admin, 'dx', 'c'), undefined);
    });

    test('uploads stored together keep each body byte for byte, and a note for each run stored, none for the rest', async () => {
      await device('oidc:ann', 'dg');
      await device('oidc:ann', 'dr');
      await store.revokeDevice(admin, 'dr', 3);
      await store.createWebhook({
        id: 'wh_group',
        url: 'https://hooks.example/in',
        events: ['run.stored'],
        description: '',
        sealedSecret: 'sealed',
        createdAt: 1,
        createdBy: 'local:admin',
      });
      // Every byte value, lengths from none to a few KiB, so a body cut at the wrong offset shows.
      const bodies = [0, 1, 255, 256, 1000, 4097, 3, 0, 2048].map((length, k) =>
        Uint8Array.from({ length }, (_, i) => (i * 7 + k) % 256),
      );
      const noteOf = (id: string) =>
        note(EVENTS.runStored, { account: 'oidc:ann', device: 'dg', run: id, privacy: 'full', size: 0 }, 5);
      const put = (deviceId: string, id: string, body: Uint8Array) =>
        store.putRun(
          {
            device: deviceId,
            id,
            contentType: 'application/octet-stream',
            privacy: 'full',
            size: body.length,
            uploadedAt: 5,
            body,
            sha256: sha(body),
          },
          noteOf(id),
        );
      await put('dg', 'early', bodies[2] ?? new Uint8Array());
      const answers = await Promise.all([
        ...bodies.map((b, i) => put('dg', `g${i}`, b)),
        put('dg', 'early', bodies[2] ?? new Uint8Array()),
        put('dr', 'gone', bodies[1] ?? new Uint8Array()),
      ]);
      assert.deepEqual(answers, [...bodies.map(() => 'stored'), 'already-stored', 'device-unknown']);
      for (const [i, b] of bodies.entries()) {
        const r = await store.runVisibleTo(ann, 'dg', `g${i}`);
        assert.equal(r?.size, b.length);
        assert.deepEqual(Buffer.from((await readAll(r)) ?? []), Buffer.from(b), `g${i}'s bytes`);
      }
      // One message each for the ten runs stored (the first 'early' included), one endpoint each.
      assert.equal((await store.outboxDepth()).pending, bodies.length + 1);
    });

    test('runs are listed newest first, scoped, in keyset pages; deletes are scoped', async () => {
      await device('oidc:ann', 'da');
      await device('oidc:bob', 'db');
      for (let i = 0; i < 4; i++) await run(i % 2 ? 'db' : 'da', `r${i}`, `body ${i}`, 2000 + i);
      const first = await store.runsVisibleTo(admin, { limit: 3 });
      assert.deepEqual(
        first.items.map((r) => r.id),
        ['r3', 'r2', 'r1'],
      );
      assert.deepEqual(
        (await store.runsVisibleTo(admin, { before: first.next, limit: 3 })).items.map((r) => r.id),
        ['r0'],
      );
      assert.deepEqual(
        (await store.runsVisibleTo(ann, { limit: 10 })).items.map((r) => `${r.device}/${r.id}/${r.size}`),
        ['da/r2/6', 'da/r0/6'],
      );
      assert.equal(await store.deleteRun(bob, 'da', 'r0'), false);
      assert.equal(await store.deleteRun(ann, 'da', 'r0'), true);
      assert.equal(await store.deleteRun(ann, 'da', 'r0'), false);
      assert.deepEqual(await store.countsVisibleTo(ann), { devices: 1, activeDevices: 1, runs: 1 });
      assert.deepEqual(await store.countsVisibleTo(admin), { devices: 2, activeDevices: 2, runs: 3 });
    });

    test('a large run is stored byte for byte and read back a chunk at a time; delete removes it all', async () => {
      await device('oidc:ann', 'dl');
      const body = new Uint8Array(1_000_003).map((_, i) => (i * 7) % 256);
      const put = () =>
        store.putRun({
          device: 'dl',
          id: 'big',
          contentType: 'application/octet-stream',
          privacy: 'full',
          size: body.length,
          uploadedAt: 9,
          body,
          sha256: sha(body),
        });
      assert.equal(await put(), 'stored');
      assert.equal(await put(), 'already-stored');
      const stored = await store.runVisibleTo(ann, 'dl', 'big');
      assert.equal(stored?.size, 1_000_003);
      const chunks: Uint8Array[] = [];
      for await (const chunk of stored?.read() ?? []) chunks.push(chunk);
      assert.ok(chunks.length > 1, 'read in several chunks');
      assert.ok(chunks.every((c) => c.byteLength <= 262_144));
      assert.deepEqual(Buffer.concat(chunks), Buffer.from(body));
      assert.equal(await store.deleteRun(ann, 'dl', 'big'), true);
      assert.equal(await store.runVisibleTo(ann, 'dl', 'big'), undefined);
      assert.deepEqual([...((await readAll(stored)) ?? [])], [], 'a deleted run reads as nothing');
    });

    test('uploads per day: the last days ending today, oldest first, scoped', async () => {
      await device('oidc:ann', 'dp');
      await device('oidc:bob', 'dq');
      const day = 86_400_000;
      const now = 20_000 * day + 5_000;
      await run('dp', 'today-1', 'a', now - 1_000);
      await run('dp', 'today-2', 'b', now - 2_000);
      await run('dq', 'yesterday', 'c', now - day);
      await run('dp', 'long-ago', 'd', now - 30 * day);
      assert.deepEqual(await store.uploadsPerDay(admin, 3, now), [0, 1, 2]);
      assert.deepEqual(await store.uploadsPerDay(ann, 3, now), [0, 0, 2]);
      assert.deepEqual(await store.uploadsPerDay(bob, 3, now), [0, 1, 0]);
    });

    test('device filters: substring of id or name (case-insensitive, wildcards literal), owner, status; each sort pages by keyset', async () => {
      await device('oidc:ann', 'dev-alpha', 1000);
      await device('oidc:bob', 'dev-beta', 1001);
      await device('oidc:ann', 'dev-gamma', 1002);
      await device('oidc:bob', 'other_1', 1003);
      await store.renameDevice(admin, 'dev-alpha', 'Zebra Lab 100%');
      await store.renameDevice(admin, 'dev-beta', 'apple lab');
      await store.renameDevice(admin, 'dev-gamma', 'Mango');
      await store.renameDevice(admin, 'other_1', 'Émile lab');
      await store.revokeDevice(admin, 'dev-gamma', 5000);
      await store.touchDevice('dev-beta', 900_000);
      await store.touchDevice('other_1', 800_000);
      const ids = async (viewer: Viewer, filter: Partial<DeviceFilter>, limit = 10, before?: string) =>
        (await store.devicesVisibleTo(viewer, { limit, before }, { staleBefore: 500_000, ...filter })).items.map(
          (d) => d.id,
        );
      assert.deepEqual(await ids(admin, { q: 'LAB' }), ['other_1', 'dev-beta', 'dev-alpha']);
      assert.deepEqual(await ids(admin, { q: 'dev-' }), ['dev-gamma', 'dev-beta', 'dev-alpha'], 'matches ids');
      assert.deepEqual(await ids(admin, { q: '100%' }), ['dev-alpha'], '% is a character');
      assert.deepEqual(await ids(admin, { q: 'r_1' }), ['other_1'], '_ is a character');
      assert.deepEqual(await ids(admin, { q: 'er_' }), ['other_1']);
      assert.deepEqual(await ids(admin, { q: 'nothing like it' }), []);
      assert.deepEqual(await ids(ann, { q: 'lab' }), ['dev-alpha'], 'scoped');
      // Within one owner's few devices PostgreSQL checks each device rather than read the index: the same answers.
      assert.deepEqual(await ids(ann, { q: '100%' }), ['dev-alpha'], 'scoped: % is a character');
      assert.deepEqual(await ids(ann, { q: 'DEV-' }), ['dev-gamma', 'dev-alpha'], 'scoped: ids, any case');
      assert.deepEqual(await ids(admin, { owner: 'oidc:bob', q: 'R_1' }), ['other_1'], "an owner's, _ is a character");
      assert.deepEqual(await ids(admin, { owner: 'oidc:bob', q: 'lab', sort: 'name' }), ['dev-beta', 'other_1']);
      assert.deepEqual(await ids(ann, { owner: 'oidc:bob' }), [], "another owner's devices are outside the scope");
      assert.deepEqual(
        await ids(ann, { owner: 'oidc:ann' }),
        ['dev-gamma', 'dev-alpha'],
        'a non-admin sees only their own',
      );
      assert.deepEqual(await ids(admin, { owner: 'oidc:bob' }), ['other_1', 'dev-beta']);
      assert.deepEqual(await ids(admin, { status: 'revoked' }), ['dev-gamma']);
      assert.deepEqual(await ids(admin, { status: 'active' }), ['other_1', 'dev-beta']);
      assert.deepEqual(await ids(admin, { status: 'stale' }), ['dev-alpha']);
      assert.deepEqual(await ids(admin, { sort: 'name' }), ['dev-beta', 'dev-gamma', 'dev-alpha', 'other_1']);
      assert.deepEqual(await ids(admin, { sort: 'last_seen' }), ['dev-beta', 'other_1', 'dev-gamma', 'dev-alpha']);
      for (const sort of ['newest', 'name', 'last_seen'] as const) {
        const all = await ids(admin, { sort });
        const walked: string[] = [];
        let before: string | undefined;
        do {
          const p = await store.devicesVisibleTo(admin, { limit: 1, before }, { staleBefore: 500_000, sort });
          walked.push(...p.items.map((d) => d.id));
          before = p.next;
        } while (before !== undefined);
        assert.deepEqual(walked, all, `${sort}: pages of one walk the whole list in order`);
      }
    });

    test('rename is scoped; a revoked device is deleted with its runs, others are refused', async () => {
      await device('oidc:ann', 'dd');
      await device('oidc:ann', 'dk');
      await run('dd', 'r1', 'one');
      await run('dd', 'r2', 'two');
      await run('dk', 'r3', 'three');
      assert.equal(await store.renameDevice(bob, 'dd', 'x'), false);
      assert.equal(await store.renameDevice(ann, 'dd', 'New name'), true);
      assert.equal((await store.deviceVisibleTo(ann, 'dd'))?.name, 'New name');
      assert.equal(await store.deleteDevice(admin, 'dd'), 'not-revoked');
      assert.equal((await store.countsVisibleTo(ann)).runs, 3, 'nothing changed');
      await store.revokeDevice(admin, 'dd', 5);
      assert.equal(await store.deleteDevice(bob, 'dd'), 'unknown');
      assert.equal(await store.deleteDevice(ann, 'dd'), 'deleted');
      assert.equal(await store.deleteDevice(ann, 'dd'), 'unknown');
      assert.equal(await store.deviceVisibleTo(admin, 'dd'), undefined);
      assert.deepEqual(await store.countsVisibleTo(ann), { devices: 1, activeDevices: 1, runs: 1 });
      assert.equal(await store.storedBytes('dk'), 5);
    });

    test('last seen is written at most once a minute; stale devices are revoked in batches', async () => {
      await device('oidc:ann', 's1', 1000);
      await device('oidc:ann', 's2', 1000);
      await device('oidc:ann', 's3', 1000);
      await store.touchDevice('s1', 50_000);
      assert.equal((await store.deviceVisibleTo(admin, 's1'))?.lastSeenAt, 1000, 'within a minute of enrolment');
      await store.touchDevice('s1', 70_000);
      assert.equal((await store.deviceVisibleTo(admin, 's1'))?.lastSeenAt, 70_000);
      await store.touchDevice('s1', 120_000);
      assert.equal((await store.deviceVisibleTo(admin, 's1'))?.lastSeenAt, 70_000, 'within a minute: not written');
      await store.touchDevice('s1', 131_000);
      assert.equal((await store.deviceVisibleTo(admin, 's1'))?.lastSeenAt, 131_000);
      const first = await store.revokeStale(10_000, 200_000, 1);
      const second = await store.revokeStale(10_000, 200_000, 1);
      assert.equal(first.length, 1);
      assert.deepEqual([...first, ...second].sort(), ['s2', 's3']);
      assert.deepEqual(await store.revokeStale(10_000, 200_000, 1), []);
      assert.equal((await store.deviceVisibleTo(admin, 's1'))?.revokedAt, null);
    });

    test('run filters: device, privacy and time range, scoped, in keyset pages', async () => {
      await device('oidc:ann', 'fa');
      await device('oidc:bob', 'fb');
      const day = 86_400_000;
      for (let i = 0; i < 6; i++) {
        const body = new TextEncoder().encode(`b${i}`);
        await store.putRun({
          device: i % 2 ? 'fb' : 'fa',
          id: `r${i}`,
          contentType: 'text/plain',
          privacy: i % 3 === 0 ? 'full' : 'minimal',
          size: body.length,
          uploadedAt: 10 * day + i * day,
          body,
          sha256: sha(body),
        });
      }
      const ids = async (viewer: Viewer, filter: RunFilter, limit = 10, before?: string) =>
        (await store.runsVisibleTo(viewer, { limit, before }, filter)).items.map((r) => r.id);
      assert.deepEqual(await ids(admin, { device: 'fa' }), ['r4', 'r2', 'r0']);
      assert.deepEqual(await ids(admin, { privacy: 'full' }), ['r3', 'r0']);
      assert.deepEqual(await ids(admin, { since: 12 * day }), ['r5', 'r4', 'r3', 'r2']);
      assert.deepEqual(await ids(admin, { until: 12 * day }), ['r1', 'r0']);
      assert.deepEqual(await ids(admin, { since: 11 * day, until: 14 * day }), ['r3', 'r2', 'r1']);
      assert.deepEqual(await ids(ann, { device: 'fb' }), [], 'scoped');
      assert.deepEqual(await ids(ann, { privacy: 'minimal' }), ['r4', 'r2']);
      const firstPage = await store.runsVisibleTo(admin, { limit: 2 }, { privacy: 'minimal' });
      assert.deepEqual(await ids(admin, { privacy: 'minimal' }, 2, firstPage.next), ['r2', 'r1']);
      assert.equal(await store.storedBytes('fa'), 6);
      assert.equal(await store.deleteRun(admin, 'fa', 'r2'), true);
      assert.equal(await store.storedBytes('fa'), 4, 'the counter follows deletions');
      assert.equal(await store.storedBytes('nobody'), 0);
      await store.revokeDevice(admin, 'fa', 1);
      assert.equal(await store.deleteDevice(admin, 'fa'), 'deleted');
      assert.equal(await store.storedBytes('fa'), 0, 'and a deleted device');
    });

    test('retention: the oldest runs of one level uploaded before an instant go in batches, with their chunks and counters', async () => {
      await device('oidc:ann', 'ra');
      await device('oidc:bob', 'rb');
      const levels = ['full', 'redacted', 'minimal'] as const;
      const big = CHUNK_SIZE + 10;
      for (let i = 0; i < 9; i++) {
        // Run 0 is chunked: its chunks must go with it.
        const body = new Uint8Array(i === 0 ? big : 10 + i).fill(i);
        await store.putRun({
          device: i % 2 ? 'rb' : 'ra',
          id: `q${i}`,
          contentType: 'application/octet-stream',
          privacy: levels[i % 3] ?? 'full',
          size: body.length,
          uploadedAt: 1000 + i * 100,
          body,
          sha256: sha(body),
        });
      }
      // full: q0 (big, 1000), q3 (13 B, 1300), q6 (16 B, 1600); redacted: q1, q4, q7; minimal: q2, q5, q8.
      assert.deepEqual(await store.storedBytesByLevel(admin), {
        full: big + 13 + 16,
        redacted: 11 + 14 + 17,
        minimal: 12 + 15 + 18,
      });
      assert.deepEqual(await store.storedBytesByLevel(bob), { full: 13, redacted: 11 + 17, minimal: 15 });
      assert.deepEqual(await store.storedRunsByLevel(admin), { full: 3, redacted: 3, minimal: 3 });
      assert.deepEqual(await store.storedRunsByLevel(bob), { full: 1, redacted: 2, minimal: 1 });
      assert.deepEqual(await store.dueForDeletion('full', 1600, 10), { runs: 2, bytes: big + 13 });
      assert.deepEqual(await store.dueForDeletion('full', 1600, 1), { runs: 1, bytes: big }, 'bounded by limit');
      assert.deepEqual(await store.deleteExpiredRuns('full', 1600, 1), { runs: 1, bytes: big }, 'oldest first');
      assert.equal(await store.runVisibleTo(admin, 'ra', 'q0'), undefined);
      assert.ok(await store.runVisibleTo(admin, 'rb', 'q3'));
      assert.deepEqual(await store.deleteExpiredRuns('full', 1600, 10), { runs: 1, bytes: 13 });
      assert.deepEqual(await store.deleteExpiredRuns('full', 1600, 10), { runs: 0, bytes: 0 });
      assert.ok(await store.runVisibleTo(admin, 'ra', 'q6'), 'uploaded at the instant: kept');
      assert.deepEqual(await store.deleteExpiredRuns('minimal', 10_000, 10), { runs: 3, bytes: 12 + 15 + 18 });
      assert.equal((await store.runsVisibleTo(admin, { limit: 20 }, { privacy: 'redacted' })).items.length, 3);
      assert.deepEqual(await store.storedBytesByLevel(admin), { full: 16, redacted: 11 + 14 + 17, minimal: 0 });
      assert.deepEqual(await store.storedRunsByLevel(admin), { full: 1, redacted: 3, minimal: 0 });
      assert.deepEqual(await store.countsVisibleTo(admin), { devices: 2, activeDevices: 2, runs: 4 });
      assert.equal(await store.storedBytes('ra'), 16 + 14);
      // Deleting a device's runs through deleteDevice keeps the byte counters too.
      await store.revokeDevice(admin, 'rb', 5);
      assert.equal(await store.deleteDevice(admin, 'rb'), 'deleted');
      assert.deepEqual(await store.storedBytesByLevel(admin), { full: 16, redacted: 14, minimal: 0 });
      assert.deepEqual(await store.storedRunsByLevel(admin), { full: 1, redacted: 1, minimal: 0 });
    });

    test('lease: one holder at a time until it expires or is released; the holder may renew', async () => {
      assert.equal(await store.takeLease('sweep', 'i1', 0, 100), true);
      assert.equal(await store.takeLease('sweep', 'i2', 50, 150), false, 'held by i1');
      assert.equal(await store.takeLease('other', 'i2', 50, 150), true, 'another lease is its own');
      assert.equal(await store.takeLease('sweep', 'i1', 60, 160), true, 'renewed by its holder');
      assert.equal(await store.takeLease('sweep', 'i2', 150, 250), false, 'renewed to 160');
      await store.releaseLease('sweep', 'i2');
      assert.equal(await store.takeLease('sweep', 'i2', 150, 250), false, 'i2 cannot release what i1 holds');
      assert.equal(await store.takeLease('sweep', 'i2', 160, 260), true, 'expired at its end');
      await store.releaseLease('sweep', 'i2');
      assert.equal(await store.takeLease('sweep', 'i3', 170, 270), true, 'free once released');
      const racers = await Promise.all(Array.from({ length: 10 }, (_, i) => store.takeLease('race', `r${i}`, 1, 1000)));
      assert.equal(racers.filter(Boolean).length, 1);
    });

    test('probe writes and reads back', async () => {
      await store.probe(123);
      await store.probe(456);
    });
  });
}
