/**
 * The search across runs (docs/contract.md section 21), on every backend: the runs holding every
 * word of a query, in any case, newest first in keyset pages, with the list's other filters and
 * the account's scope; a binary run is not indexed; a run's words leave the index with it,
 * whatever removes it (delete, retention, device delete).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import type { PrivacyLevel } from '../../src/domain/privacy.ts';
import type { RunFilter } from '../../src/domain/runs.ts';
import { parseTextQuery } from '../../src/domain/words.ts';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;
const ADMIN: Viewer = { subject: 'local:admin', admin: true, groups: [] };

export function runWordsContract(name: string, open: () => Promise<Store>): void {
  describe(`store run search: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

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
      assert.ok(
        await store.enrollDevice({
          tokenHash: `t-${id}`,
          now: T0 + n,
          deviceId: id,
          name: id,
          credentialHash: `c-${id}`,
        }),
      );
    }
    async function run(deviceId: string, id: string, body: string | Uint8Array, privacy: PrivacyLevel = 'full') {
      n++;
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      const stored = await store.putRun({
        device: deviceId,
        id,
        contentType: 'text/plain',
        privacy,
        size: bytes.length,
        uploadedAt: T0 + n * 1000,
        body: bytes,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
      assert.equal(stored, 'stored');
    }
    async function found(text: string, viewer: Viewer = ADMIN, filter: RunFilter = {}, limit = 50, before?: string) {
      const q = parseTextQuery(text);
      assert.ok(q.ok);
      const page = await store.runsVisibleTo(viewer, { limit, before }, { ...filter, text: q.query });
      return { ids: page.items.map((r) => r.id), next: page.next };
    }

    test('finds the runs holding every word, in any case, newest first', async () => {
      await device('d1', 'oidc:ann');
      await run('d1', 'r1', 'kernel: ECC error on DIMM 3\nall good');
      await run('d1', 'r2', 'Übergröße: ecc corrected\n');
      await run('d1', 'r3', 'no such words here: error-free');
      await run('d1', 'r4', '{"status":"ECC ERROR","dimm":3}');
      assert.deepEqual((await found('ecc')).ids, ['r4', 'r2', 'r1']);
      assert.deepEqual((await found('ECC error')).ids, ['r4', 'r1']);
      assert.deepEqual((await found('error')).ids, ['r4', 'r3', 'r1']);
      assert.deepEqual((await found('übergröße')).ids, ['r2']);
      assert.deepEqual((await found('ÜBERGRÖSSE')).ids, [], 'ß and SS are different words: lower case, not folded');
      assert.deepEqual((await found('ÜBERGRÖßE')).ids, ['r2']);
      assert.deepEqual((await found('3 dimm')).ids, ['r4', 'r1']);
      assert.deepEqual((await found('"ecc error" dimm')).ids, ['r4', 'r1'], 'a phrase is searched by its words');
      assert.deepEqual((await found('eccx')).ids, []);
      assert.deepEqual((await found('ec')).ids, [], 'whole words, not prefixes');
    });

    test('a binary run, or one that is not valid UTF-8, is not indexed; an empty or wordless one holds nothing', async () => {
      await device('d1', 'oidc:ann');
      await run('d1', 'bin', Buffer.concat([Buffer.from('ecc error '), Buffer.from([0xff, 0xfe, 0x00])]));
      await run('d1', 'empty', '');
      await run('d1', 'punct', '--- !!! ...\n');
      await run('d1', 'text', 'ecc error');
      assert.deepEqual((await found('ecc')).ids, ['text']);
    });

    test('the other filters and the scope apply; pages follow the cursor', async () => {
      await device('a1', 'oidc:ann');
      await device('o1', 'group:ops');
      await device('b1', 'oidc:bob');
      for (let i = 0; i < 6; i++) {
        await run('a1', `a-${i}`, `disk full ${i}`, i % 2 === 0 ? 'full' : 'redacted');
        await run('o1', `o-${i}`, `disk full ${i}`);
        await run('b1', `b-${i}`, `disk full ${i}`);
      }
      const ann: Viewer = { subject: 'oidc:ann', admin: false, groups: ['ops'] };
      await store.setAccountGroups('oidc:ann', ['ops']);
      const mine = await found('disk', ann, {}, 50);
      assert.equal(mine.ids.length, 12);
      assert.ok(
        mine.ids.every((id) => !id.startsWith('b-')),
        'never another account',
      );
      assert.deepEqual((await found('disk', ann, { device: 'a1', privacy: 'redacted' })).ids, ['a-5', 'a-3', 'a-1']);
      assert.deepEqual((await found('disk', { subject: 'oidc:bob', admin: false, groups: [] })).ids.length, 6);
      const first = await found('full', ADMIN, {}, 10);
      assert.equal(first.ids.length, 10);
      assert.ok(first.next);
      const second = await found('full', ADMIN, {}, 10, first.next);
      assert.equal(second.ids.length, 8);
      assert.equal(second.next, undefined);
      assert.equal(new Set([...first.ids, ...second.ids]).size, 18);
      // The console's counts (docs/contract.md section 22): up to the cap plus one, in scope.
      assert.equal(await store.countRuns(ann, { privacy: 'redacted' }, 100), 3);
      assert.equal(await store.countRuns(ann, { device: 'b1' }, 100), 0, "another's device counts nothing");
      assert.equal(await store.countRuns(ADMIN, { privacy: 'full' }, 5), 6, 'stops at the cap plus one');
      assert.deepEqual([...(await store.deviceNames(['a1', 'o1', 'gone']))].sort(), [
        ['a1', 'a1'],
        ['o1', 'o1'],
      ]);
      const since = T0 + (n - 2) * 1000;
      assert.deepEqual((await found('disk', ADMIN, { since })).ids, ['b-5', 'o-5', 'a-5']);
    });

    test('a large run (stored in chunks) is indexed whole: its last line is found', async () => {
      await device('d1', 'oidc:ann');
      const line = 'the quick brown fox jumps over the lazy dog 0123456789\n';
      const body = line.repeat(Math.ceil((3 * 1024 * 1024) / line.length)) + 'zebracorn at the very end';
      await run('d1', 'big', body);
      assert.deepEqual((await found('zebracorn')).ids, ['big']);
      assert.deepEqual((await found('fox zebracorn')).ids, ['big']);
    });

    test("a run's words leave the index with it: delete, retention sweep, device delete", async () => {
      await device('d1', 'oidc:ann');
      await device('d2', 'oidc:ann');
      await run('d1', 'kept', 'needle one');
      await run('d1', 'deleted', 'needle two');
      await run('d1', 'expired', 'needle three', 'redacted');
      await run('d2', 'with-device', 'needle four');
      assert.equal((await found('needle')).ids.length, 4);
      assert.ok(await store.deleteRun(ADMIN, 'd1', 'deleted'));
      assert.deepEqual(await store.deleteExpiredRuns('redacted', T0 + DAY * 365, 100), {
        runs: 1,
        bytes: 'needle three'.length,
      });
      assert.ok(await store.revokeDevice(ADMIN, 'd2', T0 + DAY));
      assert.equal(await store.deleteDevice(ADMIN, 'd2'), 'deleted');
      assert.deepEqual((await found('needle')).ids, ['kept']);
      // The same ids again: new runs, found by their own words only.
      await run('d1', 'deleted', 'other words');
      assert.deepEqual((await found('needle')).ids, ['kept']);
      assert.deepEqual((await found('other')).ids, ['deleted']);
    });
  });
}
