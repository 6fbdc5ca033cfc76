/**
 * The store's labels (docs/contract.md section 12), on every backend: tokens keep the labels they
 * give, enrollment copies them in its transaction, a change is scoped, all or nothing and holds the
 * limit of 20 under concurrent changes, and the label filters page like every filter.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import type { DeviceFilter } from '../../src/domain/devices.ts';
import type { LabelSelector, Labels } from '../../src/domain/labels.ts';

const admin: Viewer = { subject: 'local:admin', admin: true };
const ann: Viewer = { subject: 'oidc:ann', admin: false };
const bob: Viewer = { subject: 'oidc:bob', admin: false };

/** A plain object of a set, so deepEqual compares it with a literal. */
const plain = (labels: Labels) => ({ ...labels });

export function labelsContract(name: string, open: () => Promise<Store>): void {
  describe(`store labels: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    async function device(owner: string, id: string, labels: Labels = {}, at = 1000) {
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
      });
      assert.ok(d);
      return d;
    }

    test('a token keeps its labels; every device it enrolls starts with them; the control path reads none', async () => {
      const token = await store.createEnrollToken({
        hash: 'line-3',
        owner: 'oidc:ann',
        createdBy: 'local:admin',
        createdAt: 1000,
        expiresAt: 5000,
        uses: 2,
        labels: { site: 'berlin', line: '3' },
      });
      assert.deepEqual(plain(token.labels), { site: 'berlin', line: '3' });
      const [listed] = (await store.outstandingEnrollTokens({ limit: 10 }, 1500)).items;
      assert.deepEqual(plain(listed?.labels ?? {}), { line: '3', site: 'berlin' });
      for (const id of ['l3a', 'l3b'])
        assert.ok(
          await store.enrollDevice({ tokenHash: 'line-3', now: 1100, deviceId: id, name: id, credentialHash: id }),
        );
      for (const id of ['l3a', 'l3b'])
        assert.deepEqual(plain((await store.deviceVisibleTo(admin, id))?.labels ?? {}), { line: '3', site: 'berlin' });
      // A token without labels: none, and the list says so with an empty set.
      await device('oidc:ann', 'plain');
      assert.deepEqual(plain((await store.deviceVisibleTo(ann, 'plain'))?.labels ?? { x: 'y' }), {});
      const byCredential = await store.deviceByCredential('l3a', 1100);
      assert.ok(byCredential && !('labels' in byCredential), 'the control path does not read labels');
    });

    test('a change replaces or edits the set in one go, scoped; the keys changed are named', async () => {
      await device('oidc:ann', 'd1', { site: 'berlin' });
      let out = await store.changeLabels(ann, 'd1', { replace: { site: 'paris', line: '3' } });
      assert.deepEqual(out.outcome === 'changed' && [plain(out.labels), out.changed], [
        { line: '3', site: 'paris' },
        ['line', 'site'],
      ]);
      out = await store.changeLabels(admin, 'd1', { set: { rack: 'a-1', line: '3' }, remove: ['site', 'absent'] });
      assert.deepEqual(out.outcome === 'changed' && [plain(out.labels), out.changed], [
        { line: '3', rack: 'a-1' },
        ['rack', 'site'],
      ]);
      out = await store.changeLabels(ann, 'd1', { set: { line: '3' } });
      assert.deepEqual(out.outcome === 'changed' && out.changed, [], 'the same value changes nothing');
      // A value may be empty.
      out = await store.changeLabels(ann, 'd1', { set: { line: '' } });
      assert.deepEqual(out.outcome === 'changed' && plain(out.labels), { line: '', rack: 'a-1' });
      assert.deepEqual(await store.changeLabels(bob, 'd1', { replace: {} }), { outcome: 'unknown' });
      assert.deepEqual(await store.changeLabels(admin, 'nope', { replace: {} }), { outcome: 'unknown' });
      assert.deepEqual(plain((await store.deviceVisibleTo(admin, 'd1'))?.labels ?? {}), { line: '', rack: 'a-1' });
      // Deleting the device deletes its labels (the cascade): a new device of that seq starts clean.
      await store.revokeDevice(admin, 'd1', 5);
      assert.equal(await store.deleteDevice(admin, 'd1'), 'deleted');
      await device('oidc:ann', 'd2');
      assert.deepEqual(plain((await store.deviceVisibleTo(admin, 'd2'))?.labels ?? { x: 'y' }), {});
    });

    test('more than 20 labels are refused, naming the label, and nothing changes', async () => {
      const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${String(i).padStart(2, '0')}`, 'v']));
      await device('oidc:ann', 'full', twenty);
      const out = await store.changeLabels(ann, 'full', { set: { k00: 'changed', extra: 'x' } });
      assert.equal(out.outcome, 'refused');
      assert.match(out.outcome === 'refused' ? out.error : '', /"extra=x".*at most 20/);
      const after = (await store.deviceVisibleTo(ann, 'full'))?.labels ?? {};
      assert.equal(Object.keys(after).length, 20);
      assert.equal(after.k00, 'v', 'the change of k00 in the same request was not applied');
      // Removing one makes room for one.
      const swap = await store.changeLabels(ann, 'full', { set: { extra: 'x' }, remove: ['k19'] });
      assert.equal(swap.outcome, 'changed');
    });

    test('concurrent changes of one device never take it past 20 labels', async () => {
      const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`base${i}`, 'v']));
      await device('oidc:ann', 'busy', ten);
      const outs = await Promise.all(
        Array.from({ length: 16 }, (_, i) => store.changeLabels(admin, 'busy', { set: { [`new${i}`]: 'v' } })),
      );
      assert.equal(outs.filter((o) => o.outcome === 'changed').length, 10);
      assert.equal(outs.filter((o) => o.outcome === 'refused').length, 6);
      assert.equal(Object.keys((await store.deviceVisibleTo(admin, 'busy'))?.labels ?? {}).length, 20);
    });

    test('label filters: key=value or key, all must hold, scoped, in keyset pages on every path', async () => {
      // 30 devices: ann's even ones, bob's odd ones; site by i % 3, line 3 on every fifth, rack on some.
      for (let i = 1; i <= 30; i++)
        await device(
          i % 2 === 0 ? 'oidc:ann' : 'oidc:bob',
          `dev${String(i).padStart(2, '0')}`,
          {
            site: ['berlin', 'paris', 'oslo'][i % 3] as string,
            ...(i % 5 === 0 ? { line: '3' } : {}),
            ...(i % 4 === 0 ? { rack: '' } : {}),
          },
          1000 + i,
        );
      const ids = async (viewer: Viewer, labels: LabelSelector[], extra: Partial<DeviceFilter> = {}, limit = 4) => {
        const out: string[] = [];
        let before: string | undefined;
        do {
          const page = await store.devicesVisibleTo(viewer, { limit, before }, { staleBefore: 0, labels, ...extra });
          for (const d of page.items) {
            for (const s of labels)
              assert.ok(Object.hasOwn(d.labels, s.key) && (s.value === undefined || d.labels[s.key] === s.value));
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
      const berlin = { key: 'site', value: 'berlin' };
      // Read from the label index (an admin's list, newest first, every owner).
      assert.deepEqual(
        await ids(admin, [berlin]),
        expect((i) => i % 3 === 0),
      );
      assert.deepEqual(
        await ids(admin, [{ key: 'line' }]),
        expect((i) => i % 5 === 0),
      );
      assert.deepEqual(
        await ids(admin, [{ key: 'rack', value: '' }]),
        expect((i) => i % 4 === 0),
      );
      assert.deepEqual(
        await ids(admin, [{ key: 'line' }, berlin]),
        expect((i) => i % 15 === 0),
      );
      assert.deepEqual(await ids(admin, [berlin, { key: 'rack' }, { key: 'line', value: '3' }]), []);
      assert.deepEqual(await ids(admin, [{ key: 'site', value: 'Berlin' }]), [], 'values are case-sensitive');
      assert.deepEqual(
        await ids(admin, [berlin], { status: 'active' }),
        expect((i) => i % 3 === 0),
      );
      assert.deepEqual(await ids(admin, [berlin], { q: 'v12' }), ['dev12']);
      // Any other list: EXISTS on each label.
      assert.deepEqual(
        await ids(ann, [berlin]),
        expect((i) => i % 6 === 0),
      );
      assert.deepEqual(
        await ids(admin, [berlin], { owner: 'oidc:bob' }),
        expect((i) => i % 6 === 3),
      );
      assert.deepEqual(await ids(ann, [berlin], { owner: 'oidc:bob' }), [], 'another account is out of scope');
      assert.deepEqual(
        await ids(admin, [berlin], { sort: 'name' }),
        expect((i) => i % 3 === 0, 'name'),
      );
      assert.deepEqual(
        await ids(ann, [{ key: 'line' }], { sort: 'name' }),
        expect((i) => i % 10 === 0, 'name'),
      );
      // Pages carry each device's labels; the plain list too.
      const [first] = (await store.devicesVisibleTo(admin, { limit: 1 }, { staleBefore: 0 })).items;
      assert.deepEqual(plain(first?.labels ?? {}), { line: '3', site: 'berlin' });
    });
  });
}
