// The dashboard's fleet counts and uploads by level (store/dashboard.ts) on both stores: each count
// as the device list, the collections list and the run list count the same things, in the viewer's
// scope (its own and its groups'), and cached for a few seconds by the count cache.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Viewer } from '../../src/domain/accounts.ts';
import type { PrivacyLevel } from '../../src/domain/privacy.ts';
import type { Store } from '../../src/store/store.ts';
import { onBothStores } from '../support/both_stores.ts';

const DAY = 86_400_000;
const NOW = 20_000 * DAY + 12 * 3_600_000;
const admin: Viewer = { subject: 'local:admin', admin: true };
const ann: Viewer = { subject: 'oidc:ann', admin: false };
/** Ann with her group: its devices and runs count as hers (docs/contract.md section 19). */
const annOps: Viewer = { subject: 'oidc:ann', admin: false, groups: ['ops'] };
const bob: Viewer = { subject: 'oidc:bob', admin: false };
const at = { onlineSince: NOW - 5 * 60_000, daySince: NOW - DAY, staleBefore: NOW - 30 * DAY };

await onBothStores((name, open, skip) => {
  describe(`dashboard store: ${name}`, { skip }, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    /** A device of `owner` enrolled (and so last seen) at `seen`. */
    async function device(owner: string, id: string, seen: number) {
      await store.createEnrollToken({
        hash: `tok-${id}`,
        owner,
        createdBy: 'local:admin',
        createdAt: seen,
        expiresAt: seen + 1000,
      });
      const d = await store.enrollDevice({
        tokenHash: `tok-${id}`,
        now: seen,
        deviceId: id,
        name: `name-${id}`,
        credentialHash: `cred-${id}`,
      });
      assert.ok(d);
    }
    async function run(device: string, id: string, privacy: PrivacyLevel, uploadedAt: number) {
      const body = new TextEncoder().encode(id);
      const sha256 = createHash('sha256').update(body).digest('hex');
      const stored = await store.putRun({
        device,
        id,
        contentType: 'text/plain',
        privacy,
        size: body.length,
        uploadedAt,
        body,
        sha256,
      });
      assert.equal(stored, 'stored');
    }

    test('devices online, seen today and stale, open collections and flagged runs, each in scope', async () => {
      await device('oidc:ann', 'a-online', NOW - 60_000);
      await device('oidc:ann', 'a-today', NOW - 3_600_000);
      await device('oidc:ann', 'a-stale', NOW - 40 * DAY);
      await device('oidc:ann', 'a-revoked', NOW - 40 * DAY);
      await store.revokeDevice(admin, 'a-revoked', NOW - DAY);
      // Seen a moment ago, then revoked: seen today, not online (domain/devices.ts isOnline).
      await device('oidc:ann', 'a-just-revoked', NOW - 30_000);
      await store.revokeDevice(admin, 'a-just-revoked', NOW - 10_000);
      await device('oidc:bob', 'b-online', NOW - 30_000);
      await device('group:ops', 'g-online', NOW - 10_000);
      await run('a-online', 'r1', 'redacted', NOW - 1000);
      await run('b-online', 'r2', 'minimal', NOW - 1000);
      await run('g-online', 'r3', 'redacted', NOW - 1000);
      for (const [device, id] of [
        ['a-online', 'r1'],
        ['b-online', 'r2'],
        ['g-online', 'r3'],
      ] as const)
        assert.ok(await store.recordLevelCheck(device, id, { email: 1 }));
      const collection = (id: string, createdBy: string, expiresAt = NOW + DAY) => ({
        id: `c_test${id.padStart(12, '0')}`,
        createdBy,
        createdAt: NOW - 1000,
        privacy: 'redacted' as const,
        reason: 'why',
        expiresAt,
      });
      await store.createCollection(ann, collection('1', ann.subject), { devices: ['a-online'] });
      await store.createCollection(admin, collection('2', admin.subject), { devices: ['b-online'] });
      // A collection whose one target is skipped (revoked) is closed at once: not open.
      await store.createCollection(ann, collection('3', ann.subject), { devices: ['a-revoked'] });

      assert.deepEqual(await store.fleetCounts(admin, at), {
        online: 3,
        seenToday: 5,
        stale: 1,
        openCollections: 2,
        flaggedRuns: 3,
      });
      assert.deepEqual(await store.fleetCounts(ann, at), {
        online: 1,
        seenToday: 3,
        stale: 1,
        openCollections: 1,
        flaggedRuns: 1,
      });
      assert.deepEqual(await store.fleetCounts(annOps, at), {
        online: 2,
        seenToday: 4,
        stale: 1,
        openCollections: 1,
        flaggedRuns: 2,
      });
      assert.deepEqual(await store.fleetCounts(bob, at), {
        online: 1,
        seenToday: 1,
        stale: 0,
        openCollections: 0,
        flaggedRuns: 1,
      });
    });

    test('uploads per day by level: the last days ending today, oldest first, scoped', async () => {
      await device('oidc:ann', 'a', NOW - 40 * DAY);
      await device('oidc:bob', 'b', NOW - 40 * DAY);
      await device('group:ops', 'g', NOW - 40 * DAY);
      await run('a', 'long-ago', 'full', NOW - 30 * DAY);
      await run('a', 'two-days', 'full', NOW - 2 * DAY);
      await run('b', 'yesterday', 'minimal', NOW - DAY);
      await run('a', 'today-1', 'redacted', NOW - 1000);
      await run('a', 'today-2', 'full', NOW - 2000);
      await run('g', 'today-3', 'minimal', NOW - 3000);
      assert.deepEqual(await store.uploadsByLevel(admin, 3, NOW), {
        full: [1, 0, 1],
        redacted: [0, 0, 1],
        minimal: [0, 1, 1],
      });
      assert.deepEqual(await store.uploadsByLevel(ann, 3, NOW), {
        full: [1, 0, 1],
        redacted: [0, 0, 1],
        minimal: [0, 0, 0],
      });
      assert.deepEqual(await store.uploadsByLevel(annOps, 3, NOW), {
        full: [1, 0, 1],
        redacted: [0, 0, 1],
        minimal: [0, 0, 1],
      });
      assert.deepEqual(await store.uploadsByLevel(bob, 3, NOW), {
        full: [0, 0, 0],
        redacted: [0, 0, 0],
        minimal: [0, 1, 0],
      });
      // Nothing uploaded in the window: zeros, whoever asks.
      assert.deepEqual(await store.uploadsByLevel(ann, 1, NOW + 5 * DAY), { full: [0], redacted: [0], minimal: [0] });
    });
  });
});
