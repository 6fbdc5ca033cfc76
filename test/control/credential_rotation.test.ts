// Credential rotation, the device's side (docs/contract.md section 16), on both stores: POST
// /v1/credential and its overlap (the old credential works until the new one is first used, or 10
// minutes by the clock), racing and repeated rotations, Paddock-Rotate on every answer once due or
// asked, PADDOCK_CREDENTIAL_MAX_AGE, and two instances whose remembered lookups never outlive a change.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { askRotation } from '../../src/actions/credentials.ts';
import { approveDevice, rejectDevice } from '../../src/actions/approval.ts';
import { endpoint, receiver, sender } from '../webhooks/world.ts';
import { createControlApp } from '../../src/control/app.ts';
import { secretHash } from '../../src/crypto/random.ts';
import type { Actor } from '../../src/domain/accounts.ts';
import type { CredentialRules } from '../../src/domain/credentials.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const ADMIN: Actor = { subject: 'local:admin', admin: true, client: '192.0.2.1' };
const MINUTE = 60_000;
const DAY = 86_400_000;

function rotate(h: Pick<Harness, 'control'>, credential: string, body?: string) {
  return h.control('/v1/credential', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${credential}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
}

async function rotated(h: Pick<Harness, 'control'>, credential: string): Promise<string> {
  const res = await rotate(h, credential);
  assert.equal(res.status, 201, await res.clone().text());
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('paddock-rotate'), null, 'the answer that hands it over asks for nothing more');
  const answer = (await res.json()) as { credential: string };
  assert.deepEqual(Object.keys(answer), ['credential']);
  assert.match(answer.credential, /^[A-Za-z0-9_-]{43}$/);
  return answer.credential;
}

async function trail(h: Harness, event: string) {
  await h.flushAudit();
  const records = [];
  for await (const batch of h.store.auditBatches({ event }, 10)) records.push(...batch);
  return records;
}

/** A fresh store, and how to open another on the same database (PostgreSQL: a second pool, as a second instance has). */
type Open = () => Promise<{ store: Store; another: () => Promise<Store> }>;

function suite(name: string, open: Open, skip: string | false) {
  const world = async (rules?: CredentialRules) => {
    return harness({ store: (await open()).store, credentialRules: rules });
  };
  /** A harness on one store (A), and B: a second control door on another store of the same database. */
  const twoInstances = async () => {
    const opened = await open();
    const b = await opened.another();
    const h = await harness({ store: opened.store });
    const other = createControlApp({ store: b, logger: memoryLogger(), clock: h.clock });
    const onB = { control: (path: string, init?: RequestInit) => Promise.resolve(other.request(path, init)) };
    return {
      h,
      onB: onB as Harness,
      async close() {
        await h.close();
        if (b !== opened.store) await b.close();
      },
    };
  };

  describe(`credential rotation, the device's side: ${name}`, { skip }, () => {
    test('a new credential: the old one works until the new one is first used, then never again; audited once', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const fresh = await rotated(h, d.credential);
        assert.notEqual(fresh, d.credential);

        const old = await upload(h, d.credential, 'with-old', 'a');
        assert.equal(old.status, 201, 'the old one works meanwhile');
        assert.equal(old.headers.get('paddock-rotate'), 'credential', 'and is asked to rotate (to learn the new one)');
        const used = await upload(h, fresh, 'with-new', 'b');
        assert.equal(used.status, 201);
        assert.equal(used.headers.get('paddock-rotate'), null);
        // The first, an upload whose lookup was remembered, is judged again when its write is refused.
        for (const res of [
          await upload(h, d.credential, 'with-old-again', 'c'),
          await rotate(h, d.credential),
          await h.control('/v1/requests', { headers: { authorization: `Bearer ${d.credential}` } }),
        ]) {
          assert.equal(res.status, 401, 'the old one is refused from the new one’s first use');
          assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
          assert.match(await res.text(), /replaced by a rotation and presented again/, 'as reused');
        }
        // Reuse is theft: the device waits for an administrator; approving keeps the new credential.
        assert.equal((await upload(h, fresh, 'with-new-again', 'd')).status, 403);
        assert.equal(await approveDevice(h, ADMIN, d.device), 'done');
        assert.equal((await upload(h, fresh, 'with-new-again', 'd')).status, 201);
        assert.equal((await h.store.deviceByCredential(secretHash(fresh), h.clock.now()))?.id, d.device);
        assert.equal(await h.store.deviceByCredential(fresh, h.clock.now()), undefined, 'stored as its hash only');
        assert.equal((await h.store.runsVisibleTo(ADMIN, { limit: 10 }, { device: d.device })).items.length, 3);
        const records = await trail(h, 'device.credential_rotated');
        assert.deepEqual(
          records.map((r) => [r.account, r.device, r.detail]),
          [[`device:${d.device}`, d.device, 'owner=oidc:ann']],
          'the device is the actor, not its owner (docs/contract.md section 22)',
        );
        const credential = await h.store.deviceCredential(d.device);
        assert.equal(credential?.rotatedAt, h.clock.now());
        assert.equal(credential?.issuedAt, h.clock.now());
      } finally {
        await h.close();
      }
    });

    test('unused, the new credential leaves the old one working for 10 minutes by the clock', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const fresh = await rotated(h, d.credential);
        assert.equal((await upload(h, d.credential, 'r1', 'a')).status, 201);
        h.clock.advance(10 * MINUTE - 1);
        assert.equal((await upload(h, d.credential, 'r2', 'b')).status, 201, 'remembered, and still within');
        h.clock.advance(1);
        assert.equal((await upload(h, d.credential, 'r3', 'c')).status, 401, 'not a moment longer, remembered or not');
        assert.equal((await rotate(h, d.credential)).status, 401);
        // Presented after its overlap, the replaced credential made the device pending (reuse is theft).
        assert.equal((await upload(h, fresh, 'r4', 'd')).status, 403);
        assert.equal((await h.store.deviceVisibleTo(ADMIN, d.device))?.pendingReason, 'credential reused');
      } finally {
        await h.close();
      }
    });

    test('rotating again with the old credential (a lost answer) answers the same new one; the rotation audited once, the answer given again audited as reissued', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const fresh = await rotated(h, d.credential);
        h.clock.advance(5 * MINUTE);
        assert.equal(await rotated(h, d.credential), fresh);
        assert.equal((await trail(h, 'device.credential_rotated')).length, 1);
        // The answer given again is audited on its own, with the address that asked (a second holder shows).
        const reissued = await trail(h, 'device.credential_reissued');
        assert.deepEqual(
          reissued.map((r) => [r.device, r.account]),
          [[d.device, `device:${d.device}`]],
        );
        // The new one rotates in turn, to another; the first is gone for good.
        const third = await rotated(h, fresh);
        assert.notEqual(third, fresh);
        assert.equal((await upload(h, third, 'r', 'x')).status, 201);
        assert.equal((await rotate(h, d.credential)).status, 401);
        assert.equal((await rotate(h, fresh)).status, 401);
      } finally {
        await h.close();
      }
    });

    test('racing rotations with one credential all get the same new one: one credential works, one record', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const answers = await Promise.all(Array.from({ length: 8 }, () => rotate(h, d.credential)));
        assert.deepEqual(
          answers.map((r) => r.status),
          Array(8).fill(201),
        );
        const credentials = new Set(
          await Promise.all(answers.map(async (r) => ((await r.json()) as { credential: string }).credential)),
        );
        assert.equal(credentials.size, 1, 'the same new credential for every racer');
        const [fresh = ''] = credentials;
        assert.equal((await trail(h, 'device.credential_rotated')).length, 1, 'one rotation happened');
        assert.equal((await upload(h, fresh, 'r1', 'a')).status, 201);
        assert.equal((await upload(h, d.credential, 'r2', 'b')).status, 401);
      } finally {
        await h.close();
      }
    });

    test('two instances: a remembered lookup of the old credential ends with the new one’s first use elsewhere', async () => {
      const { h, onB, close } = await twoInstances();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        assert.equal((await upload(onB, d.credential, 'b1', 'a')).status, 201, 'B remembers the lookup');
        const fresh = await rotated(h, d.credential);
        assert.equal((await upload(onB, d.credential, 'b2', 'b')).status, 201, 'the overlap, on B too');
        assert.equal((await upload(h, fresh, 'a1', 'c')).status, 201, 'first used on A');
        const early = await upload(onB, d.credential, 'bad id!', 'd');
        assert.equal(early.status, 401, 'a refusal before the write asks the store again: 401, not 400');
        assert.equal((await upload(onB, d.credential, 'b2', 'b')).status, 401);
        const refused = await upload(onB, d.credential, 'b3', 'd');
        assert.equal(refused.status, 401, 'refused on B at once, within its minute of memory');
        // Seen on B after its overlap, the replaced credential made the device pending, for both instances.
        assert.equal((await upload(onB, fresh, 'b4', 'e')).status, 403);
        assert.equal((await upload(h, fresh, 'a2', 'e')).status, 403);
        assert.equal((await trail(h, 'device.credential_reused')).length, 0, "B's logger: not A's trail");
        assert.equal(await approveDevice(h, ADMIN, d.device), 'done');
        assert.equal((await upload(onB, fresh, 'b4', 'e')).status, 201);
        // An administrator's ask, on A: B's next answer carries it, though B remembers the lookup (a
        // minute after the rotation: within it an ask waits, as a rotation would answer the same credential).
        h.clock.advance(MINUTE);
        assert.equal((await upload(onB, fresh, 'b4', 'e')).status, 200, 'B remembers the lookup again');
        assert.equal(await askRotation(h, ADMIN, d.device), 'asked');
        const badId = await upload(onB, fresh, 'bad id!', 'f');
        assert.equal(badId.status, 400);
        assert.equal(badId.headers.get('paddock-rotate'), 'credential', 'a refusal carries the ask at once too');
        const asked = await upload(onB, fresh, 'b5', 'f');
        assert.equal(asked.status, 201);
        assert.equal(asked.headers.get('paddock-rotate'), 'credential');
        const runs = await h.store.runsVisibleTo(ADMIN, { limit: 10 }, { device: d.device });
        assert.deepEqual(runs.items.map((r) => r.id).sort(), ['a1', 'b1', 'b2', 'b4', 'b5']);
      } finally {
        await close();
      }
    });

    test('at most one rotation a minute: 2,000 chained rotations give one new credential and one record; the age is kept', async () => {
      const h = await world({ rotateAfterMs: DAY, maxAgeMs: 3 * DAY });
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        h.clock.advance(2 * DAY);
        const fresh = await rotated(h, d.credential);
        const issued = h.clock.now();
        let held = fresh;
        // 25 ms apart by the clock: all 2,000 within the minute after the rotation.
        for (let i = 0; i < 2_000; i++) {
          h.clock.advance(25);
          held = await rotated(h, held);
        }
        assert.equal(held, fresh, 'every chained rotation answered the credential the last one made');
        assert.equal((await trail(h, 'device.credential_rotated')).length, 1, 'one record');
        assert.equal((await trail(h, 'device.credential_reissued')).length, 0, 'nor any other');
        assert.equal((await h.store.deviceCredential(d.device))?.issuedAt, issued, 'the age is not reset');
        // A minute after the rotation, the next one replaces it.
        h.clock.advance(10_000);
        const next = await rotated(h, fresh);
        assert.notEqual(next, fresh);
        assert.equal((await trail(h, 'device.credential_rotated')).length, 2);
        assert.equal((await h.store.deviceCredential(d.device))?.issuedAt, h.clock.now());
      } finally {
        await h.close();
      }
    });

    test('within a minute of a rotation, rotating with the old credential answers the new one, and an ask waits for the minute', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const fresh = await rotated(h, d.credential);
        h.clock.advance(10_000);
        assert.equal(await rotated(h, d.credential), fresh, 'the old one, in its overlap');
        assert.equal(await rotated(h, fresh), fresh, 'the new one, used now');
        assert.equal(await askRotation(h, ADMIN, d.device), 'asked');
        const early = await upload(h, fresh, 'r1', 'a');
        assert.equal(early.status, 201);
        assert.equal(early.headers.get('paddock-rotate'), null, 'a rotation now would answer the same credential');
        h.clock.advance(MINUTE - 10_000);
        assert.equal((await upload(h, fresh, 'r2', 'b')).headers.get('paddock-rotate'), 'credential', 'then it asks');
        const next = await rotated(h, fresh);
        assert.notEqual(next, fresh);
        assert.equal((await trail(h, 'device.credential_rotated')).length, 2);
      } finally {
        await h.close();
      }
    });

    test("reuse is theft: a thief's rotation, then the real device's old credential after the overlap: 401, pending with the reason, once, delivered; neither copy reaches anything until approved", async () => {
      const h = await world();
      let secret = '';
      const r = await receiver(() => [secret]);
      const hook = await endpoint(h.store, r.url, ['device.credential_reused']);
      secret = hook.secret;
      const { sender: s } = sender(h.store);
      try {
        const real = await enrollDevice(h, 'oidc:ann');
        assert.equal((await upload(h, real.credential, 'before', 'a')).status, 201);
        // The thief copied the credential; it rotates, and uses the new one: the overlap ends.
        const thief = await rotated(h, real.credential);
        assert.equal((await upload(h, thief, 'thief-1', 'b')).status, 201);
        h.clock.advance(MINUTE);
        // The real device calls with what it holds, on every route, many times at once.
        const auth = { authorization: `Bearer ${real.credential}` };
        const answers = await Promise.all([
          ...Array.from({ length: 20 }, (_, i) => upload(h, real.credential, `real-${i}`, 'c')),
          h.control('/v1/requests', { headers: auth }),
          h.control('/v1/requests/r_1/decline', { method: 'POST', headers: auth, body: '{}' }),
          rotate(h, real.credential),
          h.control('/v1/device/facts', { method: 'PUT', headers: auth, body: '{"os":"x"}' }),
        ]);
        for (const res of answers) {
          assert.equal(res.status, 401);
          assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
          assert.match(await res.text(), /replaced by a rotation and presented again after its overlap/);
        }
        const device = await h.store.deviceVisibleTo(ADMIN, real.device);
        assert.equal(device?.pendingSince, h.clock.now());
        assert.equal(device?.pendingReason, 'credential reused');
        const records = await trail(h, 'device.credential_reused');
        assert.deepEqual(
          records.map((x) => [x.account, x.device]),
          [[`device:${real.device}`, real.device]],
          'audited once, however often it is presented',
        );
        assert.equal(h.logs.filter((x) => x.event === 'device.credential_reused').length, 1);
        s.start();
        const [got] = await r.waitFor(1);
        assert.equal(got?.payload.type, 'device.credential_reused');
        assert.equal(got?.payload.data.device, real.device);
        assert.equal(got?.payload.data.account, 'oidc:ann');
        assert.equal(typeof got?.payload.data.replaced_at, 'string');

        // The thief's credential reaches nothing either, its facts included.
        const thiefAuth = { authorization: `Bearer ${thief}` };
        for (const res of [
          await upload(h, thief, 'thief-2', 'd'),
          await h.control('/v1/requests', { headers: thiefAuth }),
          await rotate(h, thief),
          await h.control('/v1/device/facts', { method: 'PUT', headers: thiefAuth, body: '{"os":"x"}' }),
        ]) {
          assert.equal(res.status, 403);
          assert.match(await res.text(), /presented again: the device waits for an administrator's approval/);
        }
        // Still presented, the old one changes nothing more.
        assert.equal((await upload(h, real.credential, 'real-again', 'e')).status, 401);
        assert.equal((await trail(h, 'device.credential_reused')).length, 1);
        const runs = await h.store.runsVisibleTo(ADMIN, { limit: 10 }, { device: real.device });
        assert.deepEqual(runs.items.map((x) => x.id).sort(), ['before', 'thief-1']);

        // Approving keeps the credential the device holds now; the replaced one presented again makes it wait again.
        assert.equal(await approveDevice(h, ADMIN, real.device), 'done');
        assert.equal((await h.store.deviceVisibleTo(ADMIN, real.device))?.pendingReason, null);
        assert.equal((await upload(h, thief, 'thief-3', 'f')).status, 201);
        assert.equal((await upload(h, real.credential, 'real-later', 'g')).status, 401);
        assert.equal((await upload(h, thief, 'thief-4', 'h')).status, 403);
        assert.equal((await trail(h, 'device.credential_reused')).length, 2, 'once per change to pending');
        // Rejected, the device is revoked: every credential of it is unknown alike, and nothing is recorded.
        assert.equal(await rejectDevice(h, ADMIN, real.device), 'done');
        for (const credential of [real.credential, thief]) {
          const res = await upload(h, credential, 'after', 'i');
          assert.equal(res.status, 401);
          assert.match(await res.text(), /unknown or revoked/);
        }
        assert.equal((await trail(h, 'device.credential_reused')).length, 2);
      } finally {
        await s.stop();
        await r.close();
        await h.close();
      }
    });

    test('a replaced credential is kept for PADDOCK_CREDENTIAL_MAX_AGE, or 90 days: presented later, it is only unknown', async () => {
      for (const [rules, keep] of [
        [undefined, 90 * DAY],
        [{ rotateAfterMs: DAY, maxAgeMs: 3 * DAY }, 3 * DAY],
      ] as const) {
        const h = await world(rules);
        try {
          const kept = await enrollDevice(h, 'oidc:ann', 'kept');
          const forgotten = await enrollDevice(h, 'oidc:ann', 'forgotten');
          const keptNew = await rotated(h, kept.credential);
          const forgottenNew = await rotated(h, forgotten.credential);
          assert.equal((await upload(h, keptNew, 'k1', 'a')).status, 201);
          assert.equal((await upload(h, forgottenNew, 'f1', 'a')).status, 201);
          h.clock.advance(keep - 1);
          assert.match(await (await upload(h, kept.credential, 'k2', 'b')).text(), /presented again/, `${keep}`);
          h.clock.advance(1);
          const late = await upload(h, forgotten.credential, 'f2', 'b');
          assert.equal(late.status, 401);
          assert.match(await late.text(), /unknown or revoked/, 'forgotten: no longer a sign of anything');
          assert.equal((await h.store.deviceVisibleTo(ADMIN, forgotten.device))?.pendingSince, null);
          assert.equal((await h.store.deviceVisibleTo(ADMIN, kept.device))?.pendingReason, 'credential reused');
        } finally {
          await h.close();
        }
      }
    });

    test('two instances: the reuse seen on A refuses the thief’s credential that B remembers, at once', async () => {
      const { h, onB, close } = await twoInstances();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const thief = await rotated(onB, d.credential);
        assert.equal((await upload(onB, thief, 'b1', 'a')).status, 201, 'B remembers the lookup');
        assert.equal((await upload(onB, thief, 'b1', 'a')).status, 200);
        h.clock.advance(MINUTE);
        assert.equal((await upload(h, d.credential, 'a1', 'b')).status, 401, 'the real device, on A');
        const refused = await upload(onB, thief, 'b2', 'c');
        assert.equal(refused.status, 403, 'within the minute B remembers the lookup');
        assert.equal((await upload(onB, thief, 'b1', 'a')).status, 403, 'a retry too');
        assert.deepEqual(
          (await trail(h, 'device.credential_reused')).map((x) => x.device),
          [d.device],
        );
        const runs = await h.store.runsVisibleTo(ADMIN, { limit: 10 }, { device: d.device });
        assert.deepEqual(
          runs.items.map((x) => x.id),
          ['b1'],
        );
      } finally {
        await close();
      }
    });

    test('Paddock-Rotate on every answer once the credential is older than PADDOCK_CREDENTIAL_ROTATE_AFTER', async () => {
      const h = await world({ rotateAfterMs: DAY, maxAgeMs: undefined });
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const auth = { authorization: `Bearer ${d.credential}` };
        assert.equal((await upload(h, d.credential, 'r1', 'a')).headers.get('paddock-rotate'), null);
        h.clock.advance(DAY);
        assert.equal((await upload(h, d.credential, 'r2', 'b')).headers.get('paddock-rotate'), null, 'not older yet');
        h.clock.advance(1);
        const answers = [
          await upload(h, d.credential, 'r3', 'c'),
          await upload(h, d.credential, 'bad id!', 'c'),
          await h.control('/v1/requests', { headers: auth }),
          await h.control('/v1/requests/r_1/decline', { method: 'POST', headers: auth, body: '{}' }),
          await h.control('/v1/requests?wait=x', { headers: auth }),
        ];
        assert.deepEqual(
          answers.map((r) => [r.status, r.headers.get('paddock-rotate')]),
          [
            [201, 'credential'],
            [400, 'credential'],
            [200, 'credential'],
            [404, 'credential'],
            [400, 'credential'],
          ],
        );
        const fresh = await rotated(h, d.credential);
        assert.equal((await upload(h, fresh, 'r4', 'd')).headers.get('paddock-rotate'), null, 'a new one is not due');
        h.clock.advance(DAY + 1);
        assert.equal((await upload(h, fresh, 'r5', 'e')).headers.get('paddock-rotate'), 'credential');
      } finally {
        await h.close();
      }
    });

    test("an administrator's ask: the next answer carries Paddock-Rotate at once, until the device rotates", async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        assert.equal((await upload(h, d.credential, 'r1', 'a')).headers.get('paddock-rotate'), null);
        assert.equal(await askRotation(h, ADMIN, d.device), 'asked');
        assert.equal((await upload(h, d.credential, 'r2', 'b')).headers.get('paddock-rotate'), 'credential');
        const requests = await h.control('/v1/requests', { headers: { authorization: `Bearer ${d.credential}` } });
        assert.equal(requests.headers.get('paddock-rotate'), 'credential');
        const fresh = await rotated(h, d.credential);
        assert.equal((await upload(h, fresh, 'r3', 'c')).headers.get('paddock-rotate'), null);
        assert.deepEqual(
          (await trail(h, 'device.rotation_asked')).map((r) => [r.account, r.device]),
          [['local:admin', d.device]],
        );
      } finally {
        await h.close();
      }
    });

    test('PADDOCK_CREDENTIAL_MAX_AGE: an older credential is refused with 401 and why, on every route; audited once', async () => {
      const h = await world({ rotateAfterMs: DAY, maxAgeMs: 3 * DAY });
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const other = await enrollDevice(h, 'oidc:ann', 'other');
        h.clock.advance(2 * DAY);
        const renewed = await rotated(h, other.credential);
        h.clock.advance(DAY + 1);
        const auth = { authorization: `Bearer ${d.credential}` };
        const answers = [
          await upload(h, d.credential, 'r1', 'a'),
          await upload(h, d.credential, 'r2', 'b'),
          await h.control('/v1/requests', { headers: auth }),
          await h.control('/v1/requests/r_1/decline', { method: 'POST', headers: auth, body: '{}' }),
          await rotate(h, d.credential),
        ];
        for (const res of answers) {
          assert.equal(res.status, 401);
          assert.match(await res.text(), /credential has expired .*must be enrolled again/);
          assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
        }
        assert.equal((await h.store.runsVisibleTo(ADMIN, { limit: 10 }, { device: d.device })).items.length, 0);
        const records = await trail(h, 'device.credential_expired');
        assert.deepEqual(
          records.map((r) => [r.account, r.device]),
          [[`device:${d.device}`, d.device]],
          'once, however often it is presented',
        );
        assert.equal((await h.store.deviceCredential(d.device))?.expiredAt, h.clock.now());
        assert.equal((await upload(h, renewed, 'r3', 'c')).status, 201, 'a device that rotated in time works on');
      } finally {
        await h.close();
      }
    });

    test('POST /v1/credential refuses what it cannot take, precisely, and rotates nothing', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const cases: Array<[string, Response, number, RegExp]> = [
          ['no credential', await h.control('/v1/credential', { method: 'POST' }), 401, /unknown or revoked/],
          ['an unknown one', await rotate(h, 'x'.repeat(43)), 401, /unknown or revoked/],
          ['a field', await rotate(h, d.credential, '{"credential":"mine"}'), 400, /empty body or \{\}/],
          ['an array', await rotate(h, d.credential, '[]'), 400, /JSON object/],
          ['not JSON', await rotate(h, d.credential, '{'), 400, /JSON object/],
          ['9 KiB', await rotate(h, d.credential, `{"x":"${'y'.repeat(9_000)}"}`), 413, /too large/],
          [
            'GET',
            await h.control('/v1/credential', { headers: { authorization: `Bearer ${d.credential}` } }),
            405,
            /method/,
          ],
        ];
        for (const [why, res, status, body] of cases) {
          assert.equal(res.status, status, why);
          assert.match(await res.text(), body, why);
        }
        assert.equal((await trail(h, 'device.credential_rotated')).length, 0);
        assert.equal((await h.store.deviceCredential(d.device))?.rotatedAt, null);
        assert.equal((await rotate(h, d.credential, '{}')).status, 201, 'an empty JSON object is fine');
      } finally {
        await h.close();
      }
    });
  });
}

suite(
  'sqlite',
  async () => {
    const store = openSqliteStore(':memory:');
    return { store, another: async () => store };
  },
  false,
);
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
suite(
  'postgres',
  async () => {
    const schema = freshSchema();
    return {
      store: await openPostgresStore(PG_URL, { schema }),
      another: () => openPostgresStore(PG_URL, { schema }),
    };
  },
  !available && SKIP_REASON,
);
