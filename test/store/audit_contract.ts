/**
 * The audit trail and accounts parts of the store contract (docs/contract.md section 9): every Store
 * passes these, each test on a fresh store. Run by sqlite.test.ts and postgres.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { AuditPosition, Store } from '../../src/store/store.ts';
import type { AuditFilter, AuditRecord } from '../../src/domain/audit.ts';
import { FEED_START } from '../../src/store/audit_feed.ts';

const DAY = 86_400_000;

function record(at: number, event: string, more: Partial<AuditRecord> = {}): AuditRecord {
  return { at, event, account: 'local:admin', client: '203.0.113.7', device: null, run: null, detail: '', ...more };
}

export function auditContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract, audit and accounts: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(() => store.close());

    async function trail() {
      // Appended out of time order on purpose: the trail reads by time, then by arrival.
      await store.appendAudit(record(3 * DAY, 'device.revoked', { device: 'd1', account: 'oidc:ann' }));
      await store.appendAudit(record(1 * DAY, 'login.local.succeeded', { detail: 'method=local' }));
      await store.appendAudit(record(2 * DAY, 'run.deleted', { device: 'd1', run: 'r1' }));
      await store.appendAudit(record(2 * DAY, 'device.revoked', { device: 'd2', account: 'system', client: null }));
      await store.appendAudit(record(5 * DAY, 'enroll_token.minted', { detail: 'owner=oidc:ann' }));
    }
    const events = async (filter: AuditFilter, limit = 10, before?: string) =>
      (await store.auditPage(filter, { limit, before })).items.map((r) => `${r.at / DAY}:${r.event}:${r.device ?? ''}`);

    test('audit: records come back whole, newest first, ties in the order they were appended', async () => {
      await trail();
      const { items, next } = await store.auditPage({}, { limit: 10 });
      assert.equal(next, undefined);
      assert.deepEqual(items[0], record(5 * DAY, 'enroll_token.minted', { detail: 'owner=oidc:ann' }));
      assert.deepEqual(items.at(-1), record(1 * DAY, 'login.local.succeeded', { detail: 'method=local' }));
      assert.deepEqual(await events({}), [
        '5:enroll_token.minted:',
        '3:device.revoked:d1',
        '2:device.revoked:d2',
        '2:run.deleted:d1',
        '1:login.local.succeeded:',
      ]);
    });

    test('audit: each filter, alone and together', async () => {
      await trail();
      assert.deepEqual(await events({ actor: 'system' }), ['2:device.revoked:d2']);
      assert.deepEqual(await events({ actor: 'local:admin' }), [
        '5:enroll_token.minted:',
        '2:run.deleted:d1',
        '1:login.local.succeeded:',
      ]);
      assert.deepEqual(await events({ event: 'device.revoked' }), ['3:device.revoked:d1', '2:device.revoked:d2']);
      assert.deepEqual(await events({ device: 'd1' }), ['3:device.revoked:d1', '2:run.deleted:d1']);
      assert.deepEqual(await events({ since: 2 * DAY }), [
        '5:enroll_token.minted:',
        '3:device.revoked:d1',
        '2:device.revoked:d2',
        '2:run.deleted:d1',
      ]);
      assert.deepEqual(await events({ until: 3 * DAY }), [
        '2:device.revoked:d2',
        '2:run.deleted:d1',
        '1:login.local.succeeded:',
      ]);
      assert.deepEqual(await events({ since: 2 * DAY, until: 3 * DAY, actor: 'local:admin' }), ['2:run.deleted:d1']);
      assert.deepEqual(await events({ event: 'device.revoked', device: 'd2', actor: 'system' }), [
        '2:device.revoked:d2',
      ]);
      assert.deepEqual(await events({ actor: 'nobody' }), []);
      // Each filter's total is what its pages hold, counted up to the number asked for and one more.
      for (const filter of [{}, { actor: 'local:admin' }, { device: 'd1' }, { since: 2 * DAY }, { actor: 'nobody' }])
        assert.equal(await store.countAudit(filter, 10), (await events(filter)).length, JSON.stringify(filter));
      assert.equal(await store.countAudit({}, 2), 3, 'more than two: two plus one');
    });

    test('audit: keyset pages keep their filter and meet no row twice, even between equal times', async () => {
      await trail();
      const first = await store.auditPage({}, { limit: 2 });
      assert.equal(first.next, `${3 * DAY}.1`);
      const second = await store.auditPage({}, { limit: 2, before: first.next });
      assert.deepEqual(
        second.items.map((r) => r.device),
        ['d2', 'd1'],
      );
      const third = await store.auditPage({}, { limit: 2, before: second.next });
      assert.deepEqual(
        third.items.map((r) => r.event),
        ['login.local.succeeded'],
      );
      assert.equal(third.next, undefined);
      const filtered = await store.auditPage({ device: 'd1' }, { limit: 1 });
      assert.deepEqual(await events({ device: 'd1' }, 1, filtered.next), ['2:run.deleted:d1']);
      await assert.rejects(store.auditPage({}, { limit: 2, before: 'nonsense' }), TypeError);
    });

    test('audit: batches stream every matching record in order, the last one short', async () => {
      for (let i = 0; i < 23; i++) await store.appendAudit(record(i * 1000, i % 2 ? 'run.deleted' : 'device.revoked'));
      const sizes: number[] = [];
      const ats: number[] = [];
      for await (const batch of store.auditBatches({}, 10)) {
        sizes.push(batch.length);
        ats.push(...batch.map((r) => r.at));
      }
      assert.deepEqual(sizes, [10, 10, 3]);
      assert.deepEqual(
        ats,
        Array.from({ length: 23 }, (_, i) => (22 - i) * 1000),
      );
      const odd: number[] = [];
      for await (const batch of store.auditBatches({ event: 'run.deleted', since: 5000 }, 4))
        odd.push(...batch.map((r) => r.at / 1000));
      assert.deepEqual(odd, [21, 19, 17, 15, 13, 11, 9, 7, 5]);
      const none: AuditRecord[][] = [];
      for await (const batch of store.auditBatches({ actor: 'nobody' }, 4)) none.push(batch);
      assert.deepEqual(none, []);
    });

    test('audit: pruning removes the oldest records before a time, at most `limit` at once', async () => {
      for (let i = 0; i < 7; i++) await store.appendAudit(record(i * 1000, 'run.deleted'));
      assert.equal(await store.pruneAudit(5000, 3), 3);
      assert.deepEqual(
        (await store.auditPage({}, { limit: 10 })).items.map((r) => r.at),
        [6000, 5000, 4000, 3000],
      );
      assert.equal(await store.pruneAudit(5000, 3), 2);
      assert.equal(await store.pruneAudit(5000, 3), 0);
      assert.equal((await store.auditPage({}, { limit: 10 })).items.length, 2);
    });

    /**
     * The feed once it holds `want` records: on PostgreSQL a record shows once every transaction
     * that began before its own has ended, and another suite's open transaction on the same server
     * holds it back a moment (docs/decisions.md, the audit feed's order): the plan suites' bulk
     * inserts, one statement of 200,000 runs each, took over 10 s on CI's loaded cores, so it waits
     * up to a minute (and returns as soon as the records show).
     */
    async function feedAfter(after: AuditPosition, limit: number, want: number) {
      for (let i = 0; i < 1200; i++) {
        const feed = await store.auditAfter(after, limit);
        if (feed.length >= want) return feed;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return store.auditAfter(after, limit);
    }

    test('audit feed: every record after a position in the order appended (not by time), whole, in batches', async () => {
      await trail();
      const first = await feedAfter(FEED_START, 3, 3);
      assert.deepEqual(
        first.map((f) => f.record.at / DAY),
        [3, 1, 2],
        'the order they were appended',
      );
      assert.deepEqual(first[0]?.record, record(3 * DAY, 'device.revoked', { device: 'd1', account: 'oidc:ann' }));
      assert.deepEqual(
        first.map((f) => f.position.seq),
        [1, 2, 3],
      );
      const last = first.at(-1)?.position ?? FEED_START;
      const rest = await feedAfter(last, 3, 2);
      assert.deepEqual(
        rest.map((f) => [f.record.at / DAY, f.record.event]),
        [
          [2, 'device.revoked'],
          [5, 'enroll_token.minted'],
        ],
      );
      assert.deepEqual(await store.auditAfter(rest.at(-1)?.position ?? FEED_START, 3), []);
      // Pruned records leave the feed; the next record keeps its place after the position.
      assert.equal(await store.pruneAudit(2 * DAY, 10), 1);
      assert.deepEqual(
        (await feedAfter(FEED_START, 10, 4)).map((f) => f.position.seq),
        [1, 3, 4, 5],
      );
    });

    test('audit feed: the position of each destination is kept, per name, and only moves forward', async () => {
      assert.deepEqual(await store.auditForwarded('syslog'), FEED_START);
      await trail();
      const feed = await feedAfter(FEED_START, 10, 5);
      const at = (i: number) => feed[i]?.position ?? FEED_START;
      await store.setAuditForwarded('syslog', at(2));
      assert.deepEqual(await store.auditForwarded('syslog'), at(2));
      await store.setAuditForwarded('syslog', at(1));
      assert.deepEqual(await store.auditForwarded('syslog'), at(2), 'a late writer never moves it back');
      await store.setAuditForwarded('syslog', at(4));
      assert.deepEqual(await store.auditForwarded('syslog'), at(4));
      assert.deepEqual(await store.auditForwarded('other'), FEED_START);
    });

    test('accounts: most recent sign-in first, with the devices and runs each owns, keyset-paged', async () => {
      await store.recordSignIn({ subject: 'oidc:ann', display: 'Ann', lastSignInAt: 10, admin: false });
      await store.recordSignIn({ subject: 'oidc:bob', display: 'Bob', lastSignInAt: 30, admin: false });
      await store.recordSignIn({ subject: 'local:admin', display: 'admin', lastSignInAt: 20, admin: true });
      await store.recordSignIn({ subject: 'oidc:cy', display: 'Cy', lastSignInAt: 20, admin: false });
      for (const [id, owner] of [
        ['a1', 'oidc:ann'],
        ['a2', 'oidc:ann'],
        ['b1', 'oidc:bob'],
      ] as const) {
        await store.createEnrollToken({
          hash: `t-${id}`,
          owner,
          createdBy: 'local:admin',
          createdAt: 0,
          expiresAt: 1e13,
        });
        assert.ok(
          await store.enrollDevice({ tokenHash: `t-${id}`, now: 1, deviceId: id, name: id, credentialHash: id }),
        );
      }
      const body = new Uint8Array([65]);
      for (const id of ['x', 'y', 'z'])
        await store.putRun({
          device: 'a2',
          id,
          contentType: 'text/plain',
          privacy: 'full',
          size: 1,
          uploadedAt: 5,
          body,
          sha256: 'x',
        });
      const first = await store.accountsPage({ limit: 2 });
      assert.deepEqual(first.items, [
        { subject: 'oidc:bob', display: 'Bob', lastSignInAt: 30, admin: false, disabledAt: null, devices: 1, runs: 0 },
        { subject: 'oidc:cy', display: 'Cy', lastSignInAt: 20, admin: false, disabledAt: null, devices: 0, runs: 0 },
      ]);
      assert.equal(first.next, '20:oidc:cy');
      const second = await store.accountsPage({ limit: 2, before: first.next });
      assert.deepEqual(
        second.items.map((a) => [a.subject, a.devices, a.runs]),
        [
          ['local:admin', 0, 0],
          ['oidc:ann', 2, 3],
        ],
      );
      assert.equal(second.next, undefined);
      assert.equal(await store.countAccounts(10), 4, "the list's total");
      assert.equal(await store.countAccounts(2), 3, 'more than two: two plus one');
    });
  });
}
