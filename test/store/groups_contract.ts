/**
 * Groups as owners (docs/contract.md section 19), on every backend: an account's groups are
 * replaced whole and read back; a member of `group:ops` sees and acts on ops's devices and runs as
 * on its own, in every list (merged newest first, in keyset pages), filter, count and row check,
 * and nothing of another group's; a change of its groups changes what it reaches at once.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import { MAX_ACCOUNT_GROUPS } from '../../src/domain/owners.ts';
import { newCollectionId } from '../../src/domain/collections.ts';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

export function groupsContract(name: string, open: () => Promise<Store>): void {
  describe(`store groups: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    /** The viewer as the doors make it: its groups as the store holds them now. */
    const as = async (subject: string): Promise<Viewer> => ({
      subject,
      admin: false,
      groups: await store.accountGroups(subject),
    });

    let n = 0;
    async function device(id: string, owner: string) {
      n++;
      await store.createEnrollToken({
        hash: `t-${id}`,
        owner,
        createdBy: 'local:admin',
        createdAt: T0,
        expiresAt: T0 + DAY,
      });
      const d = await store.enrollDevice({
        tokenHash: `t-${id}`,
        now: T0 + n,
        deviceId: id,
        name: `name-${id}`,
        credentialHash: `c-${id}`,
      });
      assert.ok(d);
    }
    async function run(deviceId: string, id: string) {
      n++;
      const body = Buffer.from(`${deviceId}/${id}`);
      await store.putRun({
        device: deviceId,
        id,
        contentType: 'text/plain',
        privacy: 'full',
        size: body.length,
        uploadedAt: T0 + n,
        body,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
    }
    /** ann owns a1; group ops owns o1, o2; group dev owns v1; bob owns b1: enrolled in that order, interleaved. */
    async function fleet() {
      await device('o1', 'group:ops');
      await device('a1', 'oidc:ann');
      await device('v1', 'group:dev');
      await device('o2', 'group:ops');
      await device('b1', 'oidc:bob');
      for (const d of ['o1', 'a1', 'v1', 'o2', 'b1']) await run(d, `r-${d}`);
    }
    const deviceIds = async (viewer: Viewer, limit = 50, before?: string, filter = {}) =>
      store.devicesVisibleTo(viewer, { limit, before }, { staleBefore: 0, ...filter });

    test("an account's groups are replaced whole, each once, and read back by name", async () => {
      assert.deepEqual(await store.accountGroups('oidc:ann'), []);
      await store.setAccountGroups('oidc:ann', ['ops', 'Dev Team', 'ops', 'ünïcode/äll']);
      assert.deepEqual(
        (await store.accountGroups('oidc:ann')).toSorted(),
        ['Dev Team', 'ops', 'ünïcode/äll'].toSorted(),
      );
      await store.setAccountGroups('oidc:bob', ['ops']);
      await store.setAccountGroups('oidc:ann', ['dev']);
      assert.deepEqual(await store.accountGroups('oidc:ann'), ['dev']);
      assert.deepEqual(await store.accountGroups('oidc:bob'), ['ops'], "another account's groups are its own");
      await store.setAccountGroups('oidc:ann', []);
      assert.deepEqual(await store.accountGroups('oidc:ann'), []);
    });

    test('a name that is no group name, or more than 256 groups, is refused and changes nothing', async () => {
      await store.setAccountGroups('oidc:ann', ['ops']);
      for (const bad of [[''], ['a\nb'], ['x'.repeat(129)], ['ok', '\u0007']]) {
        await assert.rejects(store.setAccountGroups('oidc:ann', bad), TypeError);
      }
      const many = Array.from({ length: MAX_ACCOUNT_GROUPS + 1 }, (_, i) => `g${i}`);
      await assert.rejects(store.setAccountGroups('oidc:ann', many), TypeError);
      assert.deepEqual(await store.accountGroups('oidc:ann'), ['ops']);
      await store.setAccountGroups('oidc:ann', many.slice(0, MAX_ACCOUNT_GROUPS));
      assert.equal((await store.accountGroups('oidc:ann')).length, MAX_ACCOUNT_GROUPS);
      // The lists of an account in every group it may keep: 257 owners merged.
      await device('last', `group:g${MAX_ACCOUNT_GROUPS - 1}`);
      const ann = await as('oidc:ann');
      assert.deepEqual(
        (await deviceIds(ann)).items.map((d) => d.id),
        ['last'],
      );
      assert.deepEqual((await deviceIds(ann, 50, undefined, { q: 'name-last', status: 'active' })).items.length, 1);
      assert.deepEqual((await store.runsVisibleTo(ann, { limit: 50 }, { privacy: 'full' })).items, []);
      assert.equal((await store.countsVisibleTo(ann)).devices, 1);
    });

    test("a member of group:ops sees ops's devices and runs with its own, newest first, and nothing of dev's or bob's", async () => {
      await fleet();
      await store.setAccountGroups('oidc:ann', ['ops']);
      const ann = await as('oidc:ann');
      assert.deepEqual(
        (await deviceIds(ann)).items.map((d) => d.id),
        ['o2', 'a1', 'o1'],
      );
      // Keyset pages through the merged lists: one a page, each once, in order.
      const seen: string[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await deviceIds(ann, 1, before);
        seen.push(...page.items.map((d) => d.id));
        if (page.next === undefined) break;
        before = page.next;
      }
      assert.deepEqual(seen, ['o2', 'a1', 'o1']);
      assert.deepEqual(
        (await store.runsVisibleTo(ann, { limit: 50 })).items.map((r) => r.id),
        ['r-o2', 'r-a1', 'r-o1'],
      );
      const runPages: string[] = [];
      before = undefined;
      for (;;) {
        const page = await store.runsVisibleTo(ann, { limit: 2, before });
        runPages.push(...page.items.map((r) => r.id));
        if (page.next === undefined) break;
        before = page.next;
      }
      assert.deepEqual(runPages, ['r-o2', 'r-a1', 'r-o1']);
      assert.deepEqual(
        (await store.runsVisibleTo(ann, { limit: 50 }, { privacy: 'full' })).items.map((r) => r.id),
        ['r-o2', 'r-a1', 'r-o1'],
        'a filtered run list merges the same owners',
      );
      assert.deepEqual(
        (await store.runsVisibleTo(ann, { limit: 50 }, { device: 'o1' })).items.map((r) => r.id),
        ['r-o1'],
      );
      assert.deepEqual((await store.runsVisibleTo(ann, { limit: 50 }, { device: 'v1' })).items, []);
      const counts = await store.countsVisibleTo(ann);
      assert.deepEqual([counts.devices, counts.runs], [3, 3]);
      const perDay = await store.uploadsPerDay(ann, 7, T0 + DAY);
      assert.equal(
        perDay.reduce((a, b) => a + b, 0),
        3,
      );
    });

    test('filters and sorts of a member: owner, search, status, by name; another owner finds nothing', async () => {
      await fleet();
      await store.setAccountGroups('oidc:ann', ['ops', 'dev']);
      const ann = await as('oidc:ann');
      const ids = async (filter: object, limit = 50) =>
        (await deviceIds(ann, limit, undefined, filter)).items.map((d) => d.id);
      assert.deepEqual(await ids({ owner: 'group:ops' }), ['o2', 'o1']);
      assert.deepEqual(await ids({ owner: 'oidc:ann' }), ['a1']);
      assert.deepEqual(await ids({ owner: 'oidc:bob' }), [], "bob's devices are outside the scope");
      assert.deepEqual(await ids({ owner: 'group:sales' }), []);
      assert.deepEqual(await ids({ q: 'name-o' }), ['o2', 'o1']);
      assert.deepEqual(await ids({ q: 'name-' }), ['o2', 'v1', 'a1', 'o1']);
      assert.deepEqual(await ids({ sort: 'name' }), ['a1', 'o1', 'o2', 'v1']);
      assert.deepEqual(await ids({ status: 'active' }), ['o2', 'v1', 'a1', 'o1']);
      assert.deepEqual(await ids({ status: 'revoked' }), []);
      // Labels, read through each owner's list: a member's label filter finds its group's devices only.
      const admin = { subject: 'local:admin', admin: true };
      for (const id of ['o2', 'v1', 'b1']) await store.changeLabels(admin, id, { set: { site: 'berlin' } });
      assert.deepEqual(await ids({ labels: [{ key: 'site', value: 'berlin' }] }), ['o2', 'v1']);
      assert.deepEqual(await ids({ labels: [{ key: 'site' }], owner: 'group:ops' }), ['o2']);
    });

    test("row checks follow the groups: a member reads, renames and labels its group's device, never another's", async () => {
      await fleet();
      await store.setAccountGroups('oidc:ann', ['ops']);
      const ann = await as('oidc:ann');
      assert.equal((await store.deviceVisibleTo(ann, 'o1'))?.owner, 'group:ops');
      assert.equal(await store.deviceVisibleTo(ann, 'v1'), undefined, "dev's device is as missing");
      assert.equal(await store.deviceVisibleTo(ann, 'b1'), undefined);
      assert.ok(await store.runVisibleTo(ann, 'o1', 'r-o1'));
      assert.equal(await store.runVisibleTo(ann, 'v1', 'r-v1'), undefined);
      assert.equal(await store.renameDevice(ann, 'o1', 'ops one'), true);
      assert.equal(await store.renameDevice(ann, 'v1', 'not mine'), false);
      assert.equal((await store.changeLabels(ann, 'o2', { set: { site: 'berlin' } })).outcome, 'changed');
      assert.equal((await store.changeLabels(ann, 'v1', { set: { site: 'berlin' } })).outcome, 'unknown');
      assert.equal(await store.deleteRun(ann, 'v1', 'r-v1'), false);
      assert.equal(await store.deleteRun(ann, 'o1', 'r-o1'), true);
    });

    test("a collection by a member reaches its own and its group's devices, and shows only their targets", async () => {
      await fleet();
      await store.setAccountGroups('oidc:ann', ['ops']);
      const ann = await as('oidc:ann');
      const id = newCollectionId();
      const created = await store.createCollection(
        ann,
        { id, createdBy: 'oidc:ann', createdAt: T0 + 100, privacy: 'full', reason: 'check', expiresAt: T0 + DAY },
        { filter: { staleBefore: 0 } },
      );
      assert.equal(created.counts.pending, 3);
      const targets = await store.collectionTargets(ann, id, { limit: 50 });
      assert.deepEqual(targets.items.map((t) => t.device).toSorted(), ['a1', 'o1', 'o2']);
      // Out of the group: the targets of ops's devices are no longer the member's to see.
      await store.setAccountGroups('oidc:ann', []);
      const out = await as('oidc:ann');
      assert.deepEqual(
        (await store.collectionTargets(out, id, { limit: 50 })).items.map((t) => t.device),
        ['a1'],
      );
    });

    test('a change of groups changes the reach at once: out of ops, its devices are as missing', async () => {
      await fleet();
      await store.setAccountGroups('oidc:ann', ['ops']);
      assert.ok(await store.deviceVisibleTo(await as('oidc:ann'), 'o1'));
      await store.setAccountGroups('oidc:ann', ['dev']);
      const ann = await as('oidc:ann');
      assert.equal(await store.deviceVisibleTo(ann, 'o1'), undefined);
      assert.ok(await store.deviceVisibleTo(ann, 'v1'));
      assert.deepEqual(
        (await deviceIds(ann)).items.map((d) => d.id),
        ['v1', 'a1'],
      );
      assert.equal(await store.renameDevice(ann, 'o1', 'gone'), false);
    });

    test('group membership never makes an administrator: a group named like one reaches only its devices', async () => {
      await fleet();
      await store.setAccountGroups('oidc:ann', ['paddock-admins', 'admin']);
      const ann = await as('oidc:ann');
      assert.deepEqual(
        (await deviceIds(ann)).items.map((d) => d.id),
        ['a1'],
      );
      assert.equal(await store.revokeDevice(ann, 'b1', T0), false);
    });
  });
}
