/**
 * The SCIM store's contract (docs/contract.md section 20), on both backends: userName unique in
 * any case, writes guarded by the version read (of two at one version, one wins), filters by the
 * indexed columns, pages with their total, and a linked account's groups written in the same
 * transaction as the memberships that make them; a rename takes the group's devices, runs and
 * enrollment tokens with it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { newScimId, type ScimUser } from '../../src/domain/scim.ts';

const admin = { subject: 'local:admin', admin: true };

function user(userName: string, more: Partial<ScimUser> = {}): ScimUser {
  return {
    id: newScimId(),
    userName,
    externalId: null,
    displayName: null,
    active: true,
    attributes: { userName },
    subject: null,
    createdAt: 1000,
    updatedAt: 1000,
    version: 1,
    ...more,
  };
}

export function scimContract(name: string, open: () => Promise<Store>): void {
  describe(`scim store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    test('userName is unique in any case; filters read userName in any case, externalId and displayName exactly', async () => {
      const ada = user('Ada@Example.com', { externalId: 'ext-1', displayName: 'Ada' });
      assert.equal(await store.createScimUser(ada), 'done');
      assert.equal(await store.createScimUser(user('ada@example.COM')), 'taken');
      assert.equal(await store.createScimUser(user('bob@example.com', { externalId: 'ext-2' })), 'done');
      const page = { offset: 0, count: 10 };
      assert.deepEqual(
        (await store.scimUsers({ userName: 'ADA@example.com' }, page)).items.map((u) => u.id),
        [ada.id],
      );
      assert.equal((await store.scimUsers({ externalId: 'EXT-1' }, page)).total, 0);
      assert.equal((await store.scimUsers({ externalId: 'ext-1', displayName: 'Ada' }, page)).total, 1);
      assert.equal((await store.scimUsers({ externalId: 'ext-1', displayName: 'Bob' }, page)).total, 0);
      const all = await store.scimUsers({}, { offset: 1, count: 1 });
      assert.equal(all.total, 2);
      assert.deepEqual(
        all.items.map((u) => u.userName),
        ['bob@example.com'],
      );
      assert.equal((await store.scimUserByUserName('ADA@EXAMPLE.COM'))?.id, ada.id);
    });

    test('a replacement at a stale version misses, and changes nothing', async () => {
      const u = user('carol@example.com');
      await store.createScimUser(u);
      const next = {
        ...u,
        displayName: 'Carol',
        attributes: { userName: u.userName, displayName: 'Carol' },
        updatedAt: 2000,
      };
      const [a, b] = await Promise.all([
        store.replaceScimUser(next, 1),
        store.replaceScimUser({ ...next, displayName: 'Other' }, 1),
      ]);
      assert.deepEqual([a, b].sort(), ['done', 'missed']);
      const now = await store.scimUser(u.id);
      assert.equal(now?.version, 2);
      assert.equal(await store.replaceScimUser({ ...next, displayName: 'Late' }, 1), 'missed');
      assert.equal((await store.scimUser(u.id))?.version, 2);
      await store.createScimUser(user('dave@example.com'));
      assert.equal(await store.replaceScimUser({ ...next, userName: 'DAVE@example.com' }, 2), 'taken');
      assert.equal((await store.scimUser(u.id))?.userName, 'carol@example.com');
    });

    test("linking makes a user's SCIM groups its account's, and changes reach them in the same write", async () => {
      const u = user('eve@example.com');
      await store.createScimUser(u);
      const ops = newScimId();
      assert.equal(
        await store.createScimGroup({ id: ops, displayName: 'ops', externalId: null, createdAt: 1, members: [u.id] }),
        'done',
      );
      assert.equal(
        await store.createScimGroup({
          id: newScimId(),
          displayName: 'ops',
          externalId: null,
          createdAt: 1,
          members: [],
        }),
        'taken',
      );
      assert.deepEqual(
        (await store.unlinkedScimUsers(10)).items.map((x) => x.id),
        [u.id],
      );
      assert.ok(await store.linkScimUser(u.id, 'oidc:eve'));
      assert.ok(!(await store.linkScimUser(u.id, 'oidc:mallory')), 'linked once');
      assert.deepEqual(await store.accountGroups('oidc:eve'), ['ops']);
      assert.deepEqual(await store.scimGroupsOfSubject('oidc:eve'), ['ops']);
      assert.equal((await store.scimUserOfSubject('oidc:eve'))?.id, u.id);
      assert.equal((await store.unlinkedScimUsers(10)).total, 0);
      // A device, a run and an enrollment token of the group follow a rename.
      await store.createEnrollToken({
        hash: 'tok',
        owner: 'group:ops',
        createdBy: 'local:admin',
        createdAt: 1000,
        expiresAt: 9_000_000_000_000,
      });
      const d = await store.enrollDevice({
        tokenHash: 'tok',
        now: 1000,
        deviceId: 'd1',
        name: 'd1',
        credentialHash: 'c1',
      });
      assert.ok(d);
      const body = Buffer.from('run');
      await store.putRun({
        device: 'd1',
        id: 'r1',
        contentType: 'text/plain',
        privacy: 'full',
        size: 3,
        uploadedAt: 2000,
        body,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
      const g = await store.scimGroup(ops, true);
      assert.deepEqual(
        g?.members?.map((m) => m.id),
        [u.id],
      );
      const renamed = await store.replaceScimGroup(
        {
          id: ops,
          displayName: 'operations',
          externalId: 'x',
          updatedAt: 3000,
          renamedFrom: 'ops',
          added: [],
          removed: [],
        },
        1,
      );
      assert.equal(renamed, 'done');
      assert.equal((await store.deviceVisibleTo(admin, 'd1'))?.owner, 'group:operations');
      assert.deepEqual(await store.accountGroups('oidc:eve'), ['operations']);
      // The counters follow too: the group's own row holds its device and its run.
      const counted = await store.countsVisibleTo({ subject: 'group:operations', admin: false });
      assert.deepEqual([counted.devices, counted.runs], [1, 1]);
      assert.equal((await store.countsVisibleTo({ subject: 'group:ops', admin: false })).devices, 0);
      // Members removed and added.
      const frank = user('frank@example.com');
      await store.createScimUser(frank);
      await store.linkScimUser(frank.id, 'oidc:frank');
      assert.equal(
        await store.replaceScimGroup(
          { id: ops, displayName: 'operations', externalId: 'x', updatedAt: 4000, added: [frank.id], removed: [u.id] },
          2,
        ),
        'done',
      );
      assert.deepEqual(await store.accountGroups('oidc:eve'), []);
      assert.deepEqual(await store.accountGroups('oidc:frank'), ['operations']);
      assert.deepEqual(await store.missingScimUsers([frank.id, u.id, newScimId()]).then((m) => m.length), 1);
      // Deleting the user, then the group: the account keeps no SCIM group; the device stays the group's.
      assert.equal(await store.deleteScimUser(frank.id), 'done');
      assert.deepEqual(await store.accountGroups('oidc:frank'), []);
      assert.deepEqual((await store.scimGroup(ops, true))?.members, []);
      assert.equal(await store.deleteScimUser(frank.id), 'missed');
      assert.equal(await store.deleteScimGroup(ops), 'done');
      assert.equal(await store.scimGroup(ops, false), undefined);
      assert.equal((await store.deviceVisibleTo(admin, 'd1'))?.owner, 'group:operations');
      assert.equal(await store.deleteScimGroup(ops), 'missed');
    });
  });
}
