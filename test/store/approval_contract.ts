/**
 * The store's approval (docs/contract.md section 16), on every backend: a token keeps whether its
 * devices wait; enrollment with one that does makes a pending device; `pending` is a status of the
 * list's filter (and not active or stale); approval and rejection act once, on a device that waits
 * only, and racing each other leave one outcome; every revocation ends the wait; the count and the
 * oldest for the dashboard and the gauge; a collection skips a pending device.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import type { Approval } from '../../src/domain/enroll_tokens.ts';
import type { DeviceFilter } from '../../src/domain/devices.ts';
import { newCollectionId } from '../../src/domain/collections.ts';
import { EVENTS } from '../../src/events/catalogue.ts';
import { note } from '../../src/events/note.ts';

const admin: Viewer = { subject: 'local:admin', admin: true };
const ann: Viewer = { subject: 'oidc:ann', admin: false };
const bob: Viewer = { subject: 'oidc:bob', admin: false };
const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

export function approvalContract(name: string, open: () => Promise<Store>): void {
  describe(`store approval: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    async function device(id: string, approval: Approval, at = T0, owner = 'oidc:ann') {
      await store.createEnrollToken({
        hash: `tok-${id}`,
        owner,
        createdBy: 'local:admin',
        createdAt: at,
        expiresAt: at + DAY,
        approval,
      });
      const d = await store.enrollDevice({
        tokenHash: `tok-${id}`,
        now: at,
        deviceId: id,
        name: `name-${id}`,
        credentialHash: `cred-${id}`,
      });
      assert.ok(d);
      return d;
    }

    const ids = async (viewer: Viewer, filter: Omit<DeviceFilter, 'staleBefore'>, limit = 50, before?: string) =>
      (await store.devicesVisibleTo(viewer, { limit, before }, { staleBefore: T0 - DAY, ...filter })).items.map(
        (d) => d.id,
      );

    test('a token keeps its approval (automatic unless required); its devices wait from their enrollment', async () => {
      const minted = await store.createEnrollToken({
        hash: 'kept',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: T0,
        expiresAt: T0 + DAY,
        approval: 'required',
      });
      assert.equal(minted.approval, 'required');
      await store.createEnrollToken({
        hash: 'plain',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: T0 + 1,
        expiresAt: T0 + DAY,
      });
      const listed = (await store.outstandingEnrollTokens({ limit: 10 }, T0 + 2)).items;
      assert.deepEqual(
        listed.map((t) => t.approval),
        ['automatic', 'required'],
      );

      const waits = await device('d-wait', 'required', T0 + 5);
      assert.equal(waits.pendingSince, T0 + 5);
      const free = await device('d-free', 'automatic', T0 + 6);
      assert.equal(free.pendingSince, null);
      assert.equal(
        (await store.deviceByCredential('cred-d-wait', T0 + 5))?.pendingSince,
        T0 + 5,
        'the control path sees it',
      );
      assert.equal((await store.deviceVisibleTo(ann, 'd-wait'))?.pendingSince, T0 + 5);
      assert.equal((await store.deviceByCredential('cred-d-free', T0 + 6))?.pendingSince, null);
    });

    test('pending is a status of its own: the filter finds those that wait, pages, and keeps them out of active and stale', async () => {
      await device('a1', 'automatic', T0);
      await device('p1', 'required', T0 + 1);
      await device('p2', 'required', T0 + 2);
      await device('p3', 'required', T0 + 3, 'oidc:bob');
      // Seen long ago: stale were it not waiting.
      await device('p-old', 'required', T0 - 3 * DAY);
      await device('a-old', 'automatic', T0 - 3 * DAY);
      assert.deepEqual(await ids(admin, { status: 'pending' }), ['p-old', 'p3', 'p2', 'p1']);
      const first = await store.devicesVisibleTo(admin, { limit: 2 }, { staleBefore: T0 - DAY, status: 'pending' });
      assert.deepEqual(
        first.items.map((d) => d.id),
        ['p-old', 'p3'],
      );
      assert.ok(first.next);
      assert.deepEqual(await ids(admin, { status: 'pending' }, 2, first.next), ['p2', 'p1'], 'the next page');
      assert.deepEqual(await ids(ann, { status: 'pending' }), ['p-old', 'p2', 'p1'], "an owner's own");
      assert.deepEqual(await ids(bob, { status: 'pending', sort: 'name' }), ['p3']);
      assert.deepEqual(await ids(admin, { status: 'active' }), ['a1']);
      assert.deepEqual(await ids(admin, { status: 'stale' }), ['a-old']);
      assert.deepEqual(await ids(admin, { status: 'revoked' }), []);
      assert.equal(await store.staleDeviceCount(T0 - DAY), 1, 'a pending device is not counted stale');
      const stale = await store.markStale(T0 - DAY, T0, 10, (d) =>
        note(EVENTS.deviceStale, { account: d.owner, device: d.id, last_seen: 'long ago' }, T0),
      );
      assert.deepEqual(stale, ['a-old'], 'nor marked stale (no device.stale for it)');
      assert.deepEqual(await store.pendingDevices(), { count: 4, oldest: T0 - 3 * DAY });
    });

    test('approval: once, of a device that waits and that the viewer sees; the wait ends', async () => {
      await device('p1', 'required', T0);
      await device('a1', 'automatic', T0);
      assert.deepEqual(await store.pendingDevices(), { count: 1, oldest: T0 });
      assert.equal(await store.approveDevice(bob, 'p1'), false, 'outside the scope');
      assert.equal(await store.approveDevice(admin, 'a1'), false, 'not waiting');
      assert.equal(await store.approveDevice(admin, 'nope'), false);
      assert.equal(await store.approveDevice(admin, 'p1'), true);
      assert.equal(await store.approveDevice(admin, 'p1'), false, 'once');
      assert.equal((await store.deviceVisibleTo(admin, 'p1'))?.pendingSince, null);
      assert.deepEqual(await store.pendingDevices(), { count: 0, oldest: null });
      assert.deepEqual(await ids(admin, { status: 'active' }), ['a1', 'p1']);
      assert.equal(await store.rejectDevice(admin, 'p1', T0 + 1), false, 'an approved device is revoked, not rejected');
      assert.equal((await store.deviceVisibleTo(admin, 'p1'))?.revokedAt, null);
    });

    test('rejection revokes a device that waits, once; revoking one that waits ends its wait too', async () => {
      await device('p1', 'required', T0);
      await device('p2', 'required', T0 + 1);
      await device('a1', 'automatic', T0);
      assert.equal(await store.rejectDevice(admin, 'a1', T0 + 5), false, 'not waiting: nothing changed');
      assert.equal((await store.deviceVisibleTo(admin, 'a1'))?.revokedAt, null);
      assert.equal(await store.rejectDevice(admin, 'p1', T0 + 5), true);
      assert.equal(await store.rejectDevice(admin, 'p1', T0 + 6), false, 'once');
      const rejected = await store.deviceVisibleTo(admin, 'p1');
      assert.deepEqual([rejected?.revokedAt, rejected?.pendingSince], [T0 + 5, null]);
      assert.equal(await store.approveDevice(admin, 'p1'), false, 'a rejected device is never approved');
      assert.equal(await store.revokeDevice(admin, 'p2', T0 + 7), true);
      assert.equal((await store.deviceVisibleTo(admin, 'p2'))?.pendingSince, null);
      assert.deepEqual(await store.pendingDevices(), { count: 0, oldest: null });
      assert.deepEqual(await ids(admin, { status: 'revoked' }), ['p2', 'p1']);
      assert.deepEqual(await ids(admin, { status: 'pending' }), []);
    });

    test('an approval and a rejection racing: exactly one of them is done, and the device is in its state', async () => {
      for (let i = 0; i < 10; i++) {
        const id = `race-${i}`;
        await device(id, 'required', T0 + i);
        const [approved, rejected] = await Promise.all([
          store.approveDevice(admin, id),
          store.rejectDevice(admin, id, T0 + 100),
        ]);
        assert.equal(Number(approved) + Number(rejected), 1, `${id}: one outcome`);
        const d = await store.deviceVisibleTo(admin, id);
        assert.equal(d?.pendingSince, null);
        assert.equal(d?.revokedAt, rejected ? T0 + 100 : null);
      }
    });

    test('a collection never targets a pending device: it is skipped, with the reason pending', async () => {
      await device('p1', 'required', T0);
      await device('a1', 'automatic', T0);
      const created = await store.createCollection(
        admin,
        {
          id: newCollectionId(),
          createdBy: admin.subject,
          createdAt: T0 + 1,
          privacy: 'minimal',
          reason: 'why',
          expiresAt: T0 + DAY,
        },
        { devices: ['p1', 'a1'] },
      );
      const targets = (await store.collectionTargets(admin, created.id, { limit: 10 })).items;
      const byDevice = Object.fromEntries(targets.map((t) => [t.device, [t.state, t.reason]]));
      assert.deepEqual(byDevice, { p1: ['skipped', 'pending'], a1: ['pending', null] });
      assert.deepEqual(await store.takeRequests('p1', T0 + 2, 5), [], 'nothing for the pending device to fetch');
    });
  });
}
