/**
 * Collections and their targets in the store contract (docs/contract.md section 15): every Store
 * passes these, each test on a fresh store. Run by sqlite.test.ts and postgres.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Labels } from '../../src/domain/labels.ts';
import type { PrivacyLevel } from '../../src/domain/privacy.ts';
import { type NewCollection, REQUEST_ID, WAKE_SLICE } from '../../src/domain/collections.ts';
import type { Store } from '../../src/store/store.ts';

const admin = { subject: 'local:admin', admin: true };
const ann = { subject: 'oidc:ann', admin: false };
const HOUR = 3_600_000;

export function collectionsContract(name: string, open: () => Promise<Store>): void {
  describe(`store collections: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    async function device(owner: string, id: string, opts: { labels?: Labels; maxPrivacy?: PrivacyLevel } = {}) {
      await store.createEnrollToken({
        hash: `tok-${id}`,
        owner,
        createdBy: 'local:admin',
        createdAt: 1000,
        expiresAt: 1000 + HOUR,
        labels: opts.labels ?? {},
        maxPrivacy: opts.maxPrivacy,
      });
      const d = await store.enrollDevice({
        tokenHash: `tok-${id}`,
        now: 1000,
        deviceId: id,
        name: `name-${id}`,
        credentialHash: `cred-${id}`,
      });
      assert.ok(d);
    }

    let n = 0;
    const collection = (over: Partial<NewCollection> = {}): NewCollection => ({
      id: `c_test${String(++n).padStart(12, '0')}`,
      createdBy: admin.subject,
      createdAt: 2000,
      privacy: 'redacted',
      reason: 'firmware 2.1 on line 3',
      expiresAt: 2000 + HOUR,
      ...over,
    });

    test('from named devices: each a target, skipped ones with their reason; others not reached, not counted', async () => {
      await device('oidc:ann', 'a1');
      await device('oidc:ann', 'a2', { maxPrivacy: 'minimal' });
      await device('oidc:bob', 'b1');
      await device('oidc:ann', 'a3');
      assert.equal(await store.revokeDevice(admin, 'a3', 1500), true);
      const asked = collection({ createdBy: ann.subject });
      const scope = { devices: ['a1', 'a2', 'a3', 'b1', 'nope'] };
      assert.equal(await store.countCollectionReach(ann, asked, scope), 3, "bob's and an unknown one are not counted");
      const c = await store.createCollection(ann, asked, scope);
      assert.equal(c.counts.pending, 1);
      assert.equal(c.counts.skipped, 2);
      assert.equal(c.closedAt, null);
      const targets = (await store.collectionTargets(admin, c.id, { limit: 10 })).items;
      assert.deepEqual(targets.map((t) => [t.device, t.state, t.reason]).sort(), [
        ['a1', 'pending', null],
        ['a2', 'skipped', 'ceiling'],
        ['a3', 'skipped', 'revoked'],
      ]);
      for (const t of targets) assert.match(t.request, REQUEST_ID);
      assert.equal(await store.collectionVisibleTo({ subject: 'oidc:bob', admin: false }, c.id), undefined, 'not bob');
      assert.equal((await store.collectionVisibleTo(admin, c.id))?.id, c.id, 'an admin sees it');
    });

    test('from a filter: one statement over the device list conditions, scoped; a sixth open request is busy', async () => {
      for (const id of ['l1', 'l2', 'l3']) await device('oidc:ann', id, { labels: { line: '3' } });
      await device('oidc:ann', 'other', { labels: { line: '4' } });
      await device('oidc:bob', 'bobs', { labels: { line: '3' } });
      const filter = { labels: [{ key: 'line', value: '3' }], staleBefore: 0 };
      assert.equal(await store.countCollectionReach(admin, collection(), { filter }), 4);
      assert.equal(await store.countCollectionReach(ann, collection(), { filter }), 3, 'ann sees only her own');
      for (let i = 0; i < 5; i++) await store.createCollection(admin, collection(), { devices: ['l1'] });
      const c = await store.createCollection(admin, collection(), { filter });
      assert.equal(c.counts.pending, 3);
      const busy = (await store.collectionTargets(admin, c.id, { limit: 10 }, 'skipped')).items;
      assert.deepEqual(
        busy.map((t) => [t.device, t.reason]),
        [['l1', 'busy']],
      );
    });

    test('a device takes its open requests oldest first, at most the limit; delivered stays open; expired is not offered', async () => {
      await device('oidc:ann', 'd');
      const first = await store.createCollection(admin, collection({ reason: 'first' }), { devices: ['d'] });
      await store.createCollection(admin, collection({ reason: 'second', expiresAt: 2500 }), { devices: ['d'] });
      const taken = await store.takeRequests('d', 2100, 5);
      assert.deepEqual(
        taken.map((r) => r.reason),
        ['first', 'second'],
      );
      assert.equal((await store.collectionVisibleTo(admin, first.id))?.counts.delivered, 1);
      assert.deepEqual(
        (await store.takeRequests('d', 2600, 5)).map((r) => r.reason),
        ['first'],
        'the second expired at 2500',
      );
      assert.deepEqual(await store.wakeRequests(['x'], 2600, 5), new Map(), 'x has none');
    });

    test("waking held devices: each one's open requests, at most the limit, now delivered; the revoked; none for the rest", async () => {
      for (const id of ['d', 'e', 'f', 'r']) await device('oidc:ann', id);
      const made = [];
      for (let k = 0; k < 3; k++) {
        made.push(await store.createCollection(admin, collection({ reason: `c${k}` }), { devices: ['d', 'e', 'r'] }));
      }
      assert.ok(await store.revokeDevice(admin, 'r', 2050));
      const woken = await store.wakeRequests(['d', 'e', 'f', 'r', 'unknown'], 2100, 2);
      assert.deepEqual(
        [...woken].map(([id, found]) => [id, found === 'revoked' ? found : found.requests.map((r) => r.reason)]).sort(),
        [
          ['d', ['c0', 'c1']],
          ['e', ['c0', 'c1']],
          ['r', 'revoked'],
        ],
      );
      assert.equal(
        (await store.collectionVisibleTo(admin, made[0]?.id ?? ''))?.counts.delivered,
        2,
        'd and e were given c0',
      );
      assert.equal(
        (await store.collectionVisibleTo(admin, made[2]?.id ?? ''))?.counts.pending,
        3,
        'c2 was beyond the limit (and r was revoked)',
      );
      assert.deepEqual(
        (await store.takeRequests('d', 2200, 5)).map((r) => r.reason),
        ['c0', 'c1', 'c2'],
        'delivered stays open',
      );
      await assert.rejects(
        store.wakeRequests(
          Array.from({ length: WAKE_SLICE + 1 }, (_, i) => `x${i}`),
          2100,
          5,
        ),
        RangeError,
      );
    });

    test('fulfil and decline: once, only the device own, only while open; the last answer closes the collection', async () => {
      await device('oidc:ann', 'd');
      await device('oidc:ann', 'e');
      await store.createCollection(admin, collection(), { devices: ['d', 'e'] });
      const [forD] = await store.takeRequests('d', 2100, 5);
      const [forE] = await store.takeRequests('e', 2100, 5);
      assert.ok(forD && forE);
      assert.deepEqual(
        await store.fulfilRequest('e', forD, 'run-1', 2200),
        { outcome: 'not-open' },
        "another device's",
      );
      const done = await store.fulfilRequest('d', forD, 'run-1', 2200);
      assert.equal(done.outcome, 'fulfilled');
      assert.equal(done.outcome === 'fulfilled' && done.closed, undefined, 'e is still open');
      assert.deepEqual(await store.fulfilRequest('d', forD, 'run-2', 2201), { outcome: 'not-open' });
      assert.equal((await store.requestOf('d', forD.id))?.run, 'run-1');
      const declined = await store.declineRequest('e', forE.id, 'user said no', 2300);
      assert.equal(declined.outcome, 'declined');
      const closed = declined.outcome === 'declined' ? declined.closed : undefined;
      assert.equal(closed?.closedAt, 2300);
      assert.deepEqual([closed?.counts.fulfilled, closed?.counts.declined], [1, 1]);
      assert.deepEqual(await store.declineRequest('e', forE.id, 'again', 2301), { outcome: 'not-open' });
    });

    test('requestOf reads a request with the level of a run stored under an id; fulfil never by a run more revealing than asked', async () => {
      await device('oidc:ann', 'd');
      await store.createCollection(admin, collection({ privacy: 'redacted' }), { devices: ['d'] });
      const [r] = await store.takeRequests('d', 2100, 5);
      assert.ok(r);
      const put = (id: string, privacy: PrivacyLevel) => {
        const body = new TextEncoder().encode(id);
        const sha256 = createHash('sha256').update(body).digest('hex');
        return store.putRun({
          device: 'd',
          id,
          contentType: 'text/plain',
          privacy,
          size: 2,
          uploadedAt: 2150,
          body,
          sha256,
        });
      };
      assert.equal(await put('all', 'full'), 'stored');
      assert.equal(await put('less', 'minimal'), 'stored');
      assert.equal((await store.requestOf('d', r.id, 'all'))?.stored, 'full');
      assert.equal((await store.requestOf('d', r.id, 'less'))?.stored, 'minimal');
      assert.equal((await store.requestOf('d', r.id, 'none'))?.stored, null);
      assert.equal((await store.requestOf('d', r.id))?.stored, null);
      // Issue 42: a full run never fulfils a redacted request, whatever the caller checked before.
      assert.deepEqual(await store.fulfilRequest('d', r, 'all', 2200), { outcome: 'not-open' });
      assert.equal((await store.requestOf('d', r.id))?.state, 'delivered');
      assert.equal((await store.fulfilRequest('d', r, 'less', 2200)).outcome, 'fulfilled');
    });

    test('cancel: the creator or an admin; open targets only; expiry by the sweeper; a revoked device cancelled', async () => {
      await device('oidc:ann', 'd');
      await device('oidc:ann', 'e');
      const c = await store.createCollection(ann, collection({ createdBy: ann.subject }), { devices: ['d'] });
      assert.equal(await store.cancelCollection({ subject: 'oidc:bob', admin: false }, c.id, 2100), undefined);
      const out = await store.cancelCollection(ann, c.id, 2100);
      assert.equal(out?.cancelled, 1);
      assert.equal(out?.closed?.counts.cancelled, 1);
      assert.deepEqual(await store.takeRequests('d', 2200, 5), []);

      const later = await store.createCollection(admin, collection({ expiresAt: 3000 }), { devices: ['d'] });
      const expired = await store.expireCollections(3000, 10);
      assert.deepEqual(
        expired.map((x) => [x.id, x.counts.expired]),
        [[later.id, 1]],
      );
      const third = await store.createCollection(admin, collection(), { devices: ['e'] });
      assert.equal((await store.wakeRequests(['e'], 2100, 5)).size, 1);
      const closed = await store.cancelDeviceRequests('e', 2200);
      assert.deepEqual(
        closed.map((x) => x.id),
        [third.id],
      );
      const page = await store.collectionsVisibleTo(admin, { limit: 2 }, 'closed');
      assert.equal(page.items.length, 2);
      assert.ok(page.next);
      assert.equal((await store.collectionsVisibleTo(ann, { limit: 10 })).items.length, 1, 'ann sees what she created');
      // The lists' totals count what the lists hold, in the same scope and state, one past the count asked for.
      const all = (await store.collectionsVisibleTo(admin, { limit: 100 })).items.length;
      const closedAll = (await store.collectionsVisibleTo(admin, { limit: 100 }, 'closed')).items.length;
      assert.equal(await store.countCollectionsVisibleTo(admin, undefined, 100), all);
      assert.equal(await store.countCollectionsVisibleTo(admin, 'closed', 100), closedAll);
      assert.equal(await store.countCollectionsVisibleTo(admin, 'open', 100), all - closedAll);
      assert.equal(await store.countCollectionsVisibleTo(admin, undefined, 1), 2, 'more than one: one plus one');
      assert.equal(await store.countCollectionsVisibleTo(ann, undefined, 100), 1, "ann's own");
    });

    test('a collection is heard by a subscriber of the same store', async () => {
      await device('oidc:ann', 'd');
      const heard: string[] = [];
      const subscription = store.onRequestsCreated((id) => heard.push(id));
      await subscription.ready;
      const c = await store.createCollection(admin, collection(), { devices: ['d'] });
      for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      subscription.stop();
      assert.deepEqual(heard, [c.id]);
    });
  });
}
