/**
 * The store's facts (docs/contract.md section 16), on every backend: enrollment records what the
 * device sent in its transaction, a report replaces the set and its time, a revoked device's report
 * changes nothing, concurrent reports leave one whole set, the fact filters page like every filter
 * (and reach a collection's devices), and the dashboard's counts skip revoked devices.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import type { DeviceFilter } from '../../src/domain/devices.ts';
import type { FactSelector, Facts } from '../../src/domain/facts.ts';
import type { Labels } from '../../src/domain/labels.ts';

const admin: Viewer = { subject: 'local:admin', admin: true };
const ann: Viewer = { subject: 'oidc:ann', admin: false };

/** A plain object of a set, so deepEqual compares it with a literal. */
const plain = (facts: Facts) => ({ ...facts });

export function factsContract(name: string, open: () => Promise<Store>): void {
  describe(`store facts: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    async function device(owner: string, id: string, facts?: Facts, at = 1000, labels: Labels = {}) {
      await store.createEnrollToken({
        hash: `tok-${id}`,
        owner,
        createdBy: 'local:admin',
        createdAt: at,
        expiresAt: at + 1000,
        labels,
      });
      const d = await store.enrollDevice({
        tokenHash: `tok-${id}`,
        now: at,
        deviceId: id,
        name: `name-${id}`,
        credentialHash: `cred-${id}`,
        facts,
      });
      assert.ok(d);
      return d;
    }

    test('enrollment records the facts sent with it and when; a device that sent none never reported', async () => {
      await device('oidc:ann', 'with', { os: 'linux', hostname: 'café-β' }, 1500);
      await device('oidc:ann', 'empty', {}, 1600);
      await device('oidc:ann', 'without', undefined, 1700);
      const withFacts = await store.deviceVisibleTo(ann, 'with');
      assert.deepEqual(plain(withFacts?.facts ?? {}), { hostname: 'café-β', os: 'linux' });
      assert.equal(withFacts?.factsReportedAt, 1500);
      const empty = await store.deviceVisibleTo(ann, 'empty');
      assert.deepEqual(plain(empty?.facts ?? { x: '' }), {});
      assert.equal(empty?.factsReportedAt, 1600, 'a report of no facts is a report');
      const without = await store.deviceVisibleTo(ann, 'without');
      assert.deepEqual(plain(without?.facts ?? { x: '' }), {});
      assert.equal(without?.factsReportedAt, null);
      // The control path's lookup reads no facts.
      const found = await store.deviceByCredential('cred-with', 1600);
      assert.ok(found && !('facts' in found));
    });

    test('a report replaces the whole set and its time; a revoked or unknown device changes nothing', async () => {
      await device('oidc:ann', 'd1', { os: 'linux', arch: 'x64', hostname: 'a' });
      assert.equal(await store.reportFacts('d1', { os: 'linux', os_version: '6.12' }, 2000), true);
      let d = await store.deviceVisibleTo(admin, 'd1');
      assert.deepEqual(plain(d?.facts ?? {}), { os: 'linux', os_version: '6.12' });
      assert.equal(d?.factsReportedAt, 2000);
      assert.equal(await store.reportFacts('d1', {}, 2500), true);
      d = await store.deviceVisibleTo(admin, 'd1');
      assert.deepEqual(plain(d?.facts ?? { x: '' }), {});
      assert.equal(d?.factsReportedAt, 2500);
      const many = Object.fromEntries(
        Array.from({ length: 32 }, (_, i) => [`k${String(i).padStart(2, '0')}`, `v${i}`]),
      );
      assert.equal(await store.reportFacts('d1', many, 2600), true);
      assert.deepEqual(plain((await store.deviceVisibleTo(admin, 'd1'))?.facts ?? {}), many);
      assert.equal(await store.reportFacts('d1', { os: 'linux' }, 2700), true);

      assert.equal(await store.revokeDevice(admin, 'd1', 3000), true);
      assert.equal(await store.reportFacts('d1', { os: 'windows' }, 3100), false);
      d = await store.deviceVisibleTo(admin, 'd1');
      assert.deepEqual(plain(d?.facts ?? {}), { os: 'linux' }, 'a revoked device keeps what it last reported');
      assert.equal(d?.factsReportedAt, 2700);
      assert.equal(await store.reportFacts('nobody', { os: 'linux' }, 3200), false);
      // Deleting the device deletes its facts with it.
      assert.equal(await store.deleteDevice(admin, 'd1'), 'deleted');
      assert.deepEqual(await store.factValueCounts('os', 10), []);
    });

    test('concurrent reports of one device leave one whole set, never a mixture or an error', async () => {
      await device('oidc:ann', 'busy');
      const sets = Array.from({ length: 12 }, (_, i) =>
        Object.fromEntries(Array.from({ length: 1 + (i % 5) }, (_, k) => [`k${k}`, `report-${i}`])),
      );
      const outs = await Promise.all(sets.map((facts, i) => store.reportFacts('busy', facts, 5000 + i)));
      assert.ok(outs.every((o) => o === true));
      const got = plain((await store.deviceVisibleTo(admin, 'busy'))?.facts ?? {});
      assert.ok(
        sets.some((s) => JSON.stringify(s) === JSON.stringify(got)),
        `one whole report stays: ${JSON.stringify(got)}`,
      );
    });

    test('fact filters: key=value, exact, all must hold, scoped, in keyset pages on every path', async () => {
      // 30 devices: ann's even ones, bob's odd ones; os by i % 3, client_version 2 on every fifth.
      for (let i = 1; i <= 30; i++)
        await device(
          i % 2 === 0 ? 'oidc:ann' : 'oidc:bob',
          `dev${String(i).padStart(2, '0')}`,
          {
            os: ['linux', 'darwin', 'win32'][i % 3] as string,
            client_version: i % 5 === 0 ? '2.0.0' : '1.9.0',
            ...(i % 4 === 0 ? { hostname: 'rack 4 = top' } : {}),
          },
          1000 + i,
          i % 2 === 0 ? { site: 'berlin' } : {},
        );
      const ids = async (viewer: Viewer, facts: FactSelector[], extra: Partial<DeviceFilter> = {}, limit = 4) => {
        const out: string[] = [];
        let before: string | undefined;
        do {
          const page = await store.devicesVisibleTo(viewer, { limit, before }, { staleBefore: 0, facts, ...extra });
          for (const d of page.items) {
            for (const s of facts) assert.equal(d.facts[s.key], s.value);
            out.push(d.id);
          }
          before = page.next;
        } while (before !== undefined);
        return out;
      };
      const expect = (pick: (i: number) => boolean, order: 'newest' | 'name' = 'newest') => {
        const all = Array.from({ length: 30 }, (_, k) => k + 1).filter(pick);
        if (order === 'newest') all.reverse();
        return all.map((i) => `dev${String(i).padStart(2, '0')}`);
      };
      const linux = { key: 'os', value: 'linux' };
      const v2 = { key: 'client_version', value: '2.0.0' };
      // Read from the fact index (an admin's list, newest first, every owner).
      assert.deepEqual(
        await ids(admin, [linux]),
        expect((i) => i % 3 === 0),
      );
      assert.deepEqual(
        await ids(admin, [linux, v2]),
        expect((i) => i % 15 === 0),
      );
      assert.deepEqual(
        await ids(admin, [{ key: 'hostname', value: 'rack 4 = top' }]),
        expect((i) => i % 4 === 0),
      );
      assert.deepEqual(await ids(admin, [{ key: 'os', value: 'Linux' }]), [], 'values are case-sensitive');
      assert.deepEqual(await ids(admin, [{ key: 'os', value: 'lin' }]), [], 'exact, not a prefix');
      assert.deepEqual(await ids(admin, [linux], { q: 'v12' }), ['dev12']);
      assert.deepEqual(
        await ids(admin, [linux], { status: 'active' }),
        expect((i) => i % 3 === 0),
      );
      // With labels: a label with a value drives, the fact is checked; a label key alone is checked.
      assert.deepEqual(
        await ids(admin, [linux], { labels: [{ key: 'site', value: 'berlin' }] }),
        expect((i) => i % 6 === 0),
      );
      assert.deepEqual(
        await ids(admin, [v2], { labels: [{ key: 'site' }] }),
        expect((i) => i % 10 === 0),
      );
      // Any other list: EXISTS on each fact.
      assert.deepEqual(
        await ids(ann, [linux]),
        expect((i) => i % 6 === 0),
      );
      assert.deepEqual(
        await ids(admin, [linux], { owner: 'oidc:bob' }),
        expect((i) => i % 6 === 3),
      );
      assert.deepEqual(await ids(ann, [linux], { owner: 'oidc:bob' }), [], 'another account is out of scope');
      assert.deepEqual(
        await ids(admin, [linux, v2], { sort: 'name' }),
        expect((i) => i % 15 === 0, 'name'),
      );
      assert.deepEqual(
        await ids(admin, [v2], { sort: 'last_seen' }, 2),
        expect((i) => i % 5 === 0),
      );
      // Pages carry each device's facts and when they were reported; the plain list too.
      const [first] = (await store.devicesVisibleTo(admin, { limit: 1 }, { staleBefore: 0 })).items;
      assert.deepEqual(plain(first?.facts ?? {}), { client_version: '2.0.0', os: 'linux' });
      assert.equal(first?.factsReportedAt, 1030);
      // A collection from a fact filter reaches the devices the list shows.
      const asked = {
        id: '',
        createdBy: 'local:admin',
        createdAt: 0,
        privacy: 'minimal',
        reason: '',
        expiresAt: 0,
      } as const;
      assert.equal(await store.countCollectionReach(admin, asked, { filter: { staleBefore: 0, facts: [linux] } }), 10);
      assert.equal(
        await store.countCollectionReach(
          ann,
          { ...asked, createdBy: 'oidc:ann' },
          { filter: { staleBefore: 0, facts: [linux, v2] } },
        ),
        1,
      );
    });

    test('devices by a fact, most common value first, at most the limit, revoked and waiting ones not counted', async () => {
      let n = 0;
      for (const [version, count] of [
        ['1.0.0', 3],
        ['1.1.0', 5],
        ['0.9.0', 1],
        ['1.2.0', 3],
      ] as const)
        for (let i = 0; i < count; i++) await device('oidc:ann', `v${n++}`, { client_version: version }, 1000 + n);
      await device('oidc:ann', 'other', { os: 'linux' });
      assert.deepEqual(await store.factValueCounts('client_version', 10), [
        { value: '1.1.0', devices: 5 },
        { value: '1.0.0', devices: 3 },
        { value: '1.2.0', devices: 3 },
        { value: '0.9.0', devices: 1 },
      ]);
      assert.deepEqual(await store.factValueCounts('client_version', 2), [
        { value: '1.1.0', devices: 5 },
        { value: '1.0.0', devices: 3 },
      ]);
      assert.equal(await store.revokeDevice(admin, 'v0', 5000), true);
      assert.equal(await store.revokeDevice(admin, 'v1', 5000), true);
      assert.deepEqual((await store.factValueCounts('client_version', 10)).slice(0, 2), [
        { value: '1.1.0', devices: 5 },
        { value: '1.2.0', devices: 3 },
      ]);
      // A value whose every device is revoked is gone from the counts, not listed with none.
      assert.equal(await store.revokeDevice(admin, 'v8', 5000), true);
      assert.deepEqual(await store.factValueCounts('client_version', 10), [
        { value: '1.1.0', devices: 5 },
        { value: '1.2.0', devices: 3 },
        { value: '1.0.0', devices: 1 },
      ]);
      assert.deepEqual(await store.factValueCounts('nothing', 10), []);
      // A device waiting for approval is not counted: a token's holder could skew the counts.
      await store.createEnrollToken({
        hash: 'tok-waiting',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: 6000,
        expiresAt: 7000,
        uses: 6,
        approval: 'required',
      });
      for (let i = 0; i < 6; i++)
        assert.ok(
          await store.enrollDevice({
            tokenHash: 'tok-waiting',
            now: 6000,
            deviceId: `w${i}`,
            name: `waiting-${i}`,
            credentialHash: `cred-w${i}`,
            facts: { client_version: '6.6.6' },
          }),
        );
      assert.deepEqual(await store.factValueCounts('client_version', 10), [
        { value: '1.1.0', devices: 5 },
        { value: '1.2.0', devices: 3 },
        { value: '1.0.0', devices: 1 },
      ]);
      // Approved, a waiting device counts.
      assert.equal(await store.approveDevice(admin, 'w0'), true);
      assert.deepEqual((await store.factValueCounts('client_version', 10)).at(-1), { value: '6.6.6', devices: 1 });
    });
  });
}
