/**
 * The store's owners (docs/contract.md section 19), on every backend: a hand-over moves a batch of
 * devices and their runs' copy of the owner in one transaction, with a note per device moved, and
 * the counters follow (dashboard, accounts, bytes and runs per level); a device already the new
 * owner's, or unknown, is left out; a leaving account's devices are found batch after batch; the
 * dashboard counts the devices of disabled accounts; the groups known from accounts and owners,
 * paged by name, with members and devices.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import { EVENTS } from '../../src/events/catalogue.ts';
import { note } from '../../src/events/note.ts';

const admin: Viewer = { subject: 'local:admin', admin: true };
const ann: Viewer = { subject: 'oidc:ann', admin: false };
const bob: Viewer = { subject: 'oidc:bob', admin: false };
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export function ownersContract(name: string, open: () => Promise<Store>): void {
  describe(`store owners: ${name}`, () => {
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
    async function run(deviceId: string, id: string, text: string, privacy: 'full' | 'minimal' = 'full') {
      const body = new TextEncoder().encode(text);
      const stored = await store.putRun({
        device: deviceId,
        id,
        contentType: 'text/plain',
        privacy,
        size: body.length,
        uploadedAt: 2000,
        body,
        sha256: sha(body),
      });
      assert.equal(stored, 'stored');
    }
    const moved = (_from: string, to: string) => (one: { device: string; from: string }) =>
      note(EVENTS.deviceOwnerChanged, { account: 'local:admin', device: one.device, from: one.from, to }, 3000);

    test('a hand-over moves the devices and their runs, and the counters follow', async () => {
      await device('oidc:ann', 'd1');
      await device('oidc:ann', 'd2');
      await device('oidc:bob', 'd3');
      await run('d1', 'r1', 'abc');
      await run('d1', 'r2', 'defgh', 'minimal');
      await run('d2', 'r3', 'x');
      await run('d3', 'r4', 'yy');
      await store.revokeDevice(admin, 'd2', 1500);
      const out = await store.handOverDevices(['d1', 'd2', 'd3', 'nope'], 'group:ops', moved('', 'group:ops'));
      assert.deepEqual(
        out.sort((a, b) => a.device.localeCompare(b.device)),
        [
          { device: 'd1', from: 'oidc:ann' },
          { device: 'd2', from: 'oidc:ann' },
          { device: 'd3', from: 'oidc:bob' },
        ],
      );
      const group: Viewer = { subject: 'oidc:cy', admin: false, groups: ['ops'] };
      await store.setAccountGroups(group.subject, ['ops']);
      assert.deepEqual(await store.countsVisibleTo(ann), { devices: 0, activeDevices: 0, runs: 0 });
      assert.deepEqual(await store.countsVisibleTo(bob), { devices: 0, activeDevices: 0, runs: 0 });
      assert.deepEqual(await store.countsVisibleTo(group), { devices: 3, activeDevices: 2, runs: 4 });
      assert.deepEqual(await store.countsVisibleTo(admin), { devices: 3, activeDevices: 2, runs: 4 });
      assert.deepEqual(await store.storedBytesByLevel(ann), { full: 0, redacted: 0, minimal: 0 });
      assert.deepEqual(await store.storedBytesByLevel(group), { full: 6, redacted: 0, minimal: 5 });
      assert.deepEqual(await store.storedRunsByLevel(group), { full: 3, redacted: 0, minimal: 1 });
      // The runs' owner moved with them: the old owners' run lists are empty, the group's has all.
      assert.equal((await store.runsVisibleTo(ann, { limit: 10 })).items.length, 0);
      assert.equal((await store.runsVisibleTo(group, { limit: 10 })).items.length, 4);
      assert.ok(await store.runVisibleTo(group, 'd1', 'r2'));
      assert.equal(await store.runVisibleTo(ann, 'd1', 'r2'), undefined);
      assert.equal((await store.deviceVisibleTo(admin, 'd1'))?.owner, 'group:ops');
    });

    test('a device already the owner’s is left out, and nothing is noted for it', async () => {
      await device('oidc:ann', 'd1');
      await store.createWebhook({
        id: 'wh_1',
        url: 'https://example.com/hook',
        events: ['*'],
        description: '',
        sealedSecret: 's',
        createdAt: 1,
        createdBy: 'local:admin',
      });
      const before = (await store.outboxDepth()).pending;
      assert.equal((await store.handOverDevices(['d1'], 'oidc:bob', moved('oidc:ann', 'oidc:bob'))).length, 1);
      assert.equal((await store.outboxDepth()).pending, before + 1, 'one note, in the transaction');
      assert.deepEqual(await store.handOverDevices(['d1'], 'oidc:bob', moved('oidc:ann', 'oidc:bob')), []);
      assert.equal((await store.outboxDepth()).pending, before + 1);
      assert.deepEqual(await store.handOverDevices([], 'oidc:bob', moved('oidc:ann', 'oidc:bob')), []);
      assert.deepEqual(await store.countsVisibleTo(bob), { devices: 1, activeDevices: 1, runs: 0 });
    });

    test('a leaving account’s devices, oldest first, batch after batch; none left once handed over', async () => {
      for (let i = 0; i < 5; i++) await device('oidc:ann', `d${i}`, 1000 + i);
      await device('oidc:bob', 'b1');
      assert.deepEqual(await store.devicesOwnedBy('oidc:ann', 3), ['d0', 'd1', 'd2']);
      await store.handOverDevices(['d0', 'd1', 'd2'], 'oidc:bob', moved('oidc:ann', 'oidc:bob'));
      assert.deepEqual(await store.devicesOwnedBy('oidc:ann', 3), ['d3', 'd4']);
      await store.handOverDevices(['d3', 'd4'], 'oidc:bob', moved('oidc:ann', 'oidc:bob'));
      assert.deepEqual(await store.devicesOwnedBy('oidc:ann', 3), []);
    });

    test('the devices of disabled accounts, from the counters', async () => {
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann', lastSignInAt: 1, admin: false });
      await store.recordSignIn({ subject: 'oidc:bob', display: 'Bob', lastSignInAt: 1, admin: false });
      await device('oidc:ann', 'd1');
      await device('oidc:ann', 'd2');
      await device('oidc:bob', 'd3');
      assert.equal(await store.disabledOwnersDevices(), 0);
      await store.setAccountDisabled('oidc:ann', 5);
      assert.equal(await store.disabledOwnersDevices(), 2);
      await store.handOverDevices(['d1'], 'group:ops', moved('oidc:ann', 'group:ops'));
      assert.equal(await store.disabledOwnersDevices(), 1);
      await store.setAccountDisabled('oidc:bob', 6);
      assert.equal(await store.disabledOwnersDevices(), 2);
    });

    test('the audit trail appends a hand-over’s records together, in order (appendAudits)', async () => {
      const record = (i: number) => ({
        at: 5000 + i,
        event: EVENTS.deviceOwnerChanged.name,
        account: 'local:admin',
        client: null,
        device: `d${i}`,
        run: null,
        detail: `from=oidc:ann to=group:ops`,
      });
      await store.appendAudits(Array.from({ length: 120 }, (_, i) => record(i)));
      const page = await store.auditPage({}, { limit: 200 });
      assert.equal(page.items.length, 120);
      assert.deepEqual(
        page.items.map((r) => r.device),
        Array.from({ length: 120 }, (_, i) => `d${119 - i}`),
        'newest first, each once',
      );
    });

    test('groups: known from accounts and from owners, by name, paged, with members and devices', async () => {
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann', lastSignInAt: 1, admin: false });
      await store.recordSignIn({ subject: 'oidc:bob', display: 'Bob', lastSignInAt: 1, admin: false });
      await store.setAccountGroups('oidc:ann', ['b-team', 'ops']);
      await store.setAccountGroups('oidc:bob', ['ops']);
      await device('group:a-owners', 'd1');
      await device('group:ops', 'd2');
      await device('group:ops', 'd3');
      await device('oidc:ann', 'd4');
      const first = await store.groupsPage({ limit: 2 });
      assert.deepEqual(
        first.items.map((g) => [g.name, g.memberCount, g.devices]),
        [
          ['a-owners', 0, 1],
          ['b-team', 1, 0],
        ],
      );
      assert.equal(first.next, 'b-team');
      const second = await store.groupsPage({ limit: 2, before: first.next });
      assert.deepEqual(
        second.items.map((g) => [g.name, g.memberCount, g.devices]),
        [['ops', 2, 2]],
      );
      assert.equal(second.next, undefined);
      assert.equal(await store.countGroups(10), 3, 'a-owners, b-team and ops, each once');
      assert.equal(await store.countGroups(1), 2, 'more than one: one plus one');
      assert.deepEqual(
        second.items[0]?.members.map((m) => m.subject),
        ['oidc:ann', 'oidc:bob'],
      );
      const ops = await store.group('ops', 1);
      assert.deepEqual(ops && [ops.memberCount, ops.members.length, ops.devices], [2, 1, 2]);
      assert.equal(await store.group('nobody', 10), undefined);
      assert.ok(await store.group('a-owners', 10));
    });
  });
}
