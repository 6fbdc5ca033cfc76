/**
 * Webhook deliveries end to end on both stores (docs/contract.md section 13): an action's message
 * is delivered signed, as the `standardwebhooks` library verifies it; a 500 is retried with the
 * same id; a receiver that hangs times out; a redirect is not followed; a rotated secret signs
 * with both secrets; a failing endpoint is disabled, audited; finished deliveries are pruned.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { revokeDevice, renameDevice } from '../../src/actions/devices.ts';
import { labelDevice } from '../../src/actions/labels.ts';
import { rotateWebhookSecret, testWebhook, redeliverMessage } from '../../src/actions/webhooks.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { systemClock } from '../../src/clock.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { ADMIN, endpoint, enrolled, receiver, sender, until, webhookDeps } from './world.ts';

const actionDeps = (store: Store) => ({ store, logger: memoryLogger(), clock: systemClock });

function suite(name: string, open: () => Promise<Store>, skip?: string | false) {
  describe(`webhook deliveries: ${name}`, { skip }, () => {
    test("an action's message is delivered, signed as Standard Webhooks says", async () => {
      const store = await open();
      let secret = '';
      const r = await receiver(() => [secret]);
      const hook = await endpoint(store, r.url, ['device.revoked']);
      secret = hook.secret;
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      await enrolled(store, 'dev-aaaaaaaa');
      assert.equal(await revokeDevice(actionDeps(store), ADMIN, 'dev-aaaaaaaa'), 'revoked');
      // Not subscribed: renamed is not sent to this endpoint.
      await renameDevice(actionDeps(store), ADMIN, { id: 'dev-aaaaaaaa', name: 'other' });
      const { sender: s } = sender(store);
      s.start();
      const [got] = await r.waitFor(1);
      await s.stop();
      assert.equal(got?.payload.type, 'device.revoked');
      assert.deepEqual(got?.payload.data, { account: 'local:admin', client: '192.0.2.1', device: 'dev-aaaaaaaa' });
      assert.match(got?.id ?? '', /^msg_[0-9a-f]{32}$/);
      assert.equal(r.received.length, 1);
      const [attempt] = await store.webhookAttempts(hook.id, 10);
      assert.equal(attempt?.statusCode, 200);
      assert.equal(attempt?.status, 'delivered');
      assert.equal((await store.webhook(hook.id))?.lastOutcome, '200');
      assert.deepEqual(await store.outboxDepth(), { pending: 0, oldest: null });
      await r.close();
      await store.close();
    });

    test('a message is owed to the endpoints subscribed when it committed, and counts as pending until the sender fans it out', async () => {
      const store = await open();
      const kept = await receiver(() => [keptHook.secret]);
      const keptHook = await endpoint(store, kept.url, ['device.revoked']);
      const gone = await receiver(() => []);
      const goneHook = await endpoint(store, gone.url, ['device.revoked']);
      await enrolled(store, 'dev-cccccccc');
      const before = Date.now();
      assert.equal(await revokeDevice(actionDeps(store), ADMIN, 'dev-cccccccc'), 'revoked');
      const depth = await store.outboxDepth();
      assert.equal(depth.pending, 2);
      assert.ok(depth.oldest !== null && depth.oldest >= before, String(depth.oldest));
      // After the commit, before the sender looks: one endpoint deleted, another subscribed.
      assert.equal(await store.deleteWebhook(goneHook.id), true);
      const late = await receiver(() => []);
      await endpoint(store, late.url, ['device.revoked']);
      const { sender: s } = sender(store);
      s.start();
      const [got] = await kept.waitFor(1);
      await s.idle();
      await s.stop();
      assert.equal(got?.payload.type, 'device.revoked');
      assert.equal(gone.hits + late.hits, 0);
      assert.deepEqual(await store.outboxDepth(), { pending: 0, oldest: null });
      for (const r of [kept, gone, late]) await r.close();
      await store.close();
    });

    test('a label change is delivered as device.labelled, with the keys changed; a change that changes nothing sends nothing', async () => {
      const store = await open();
      let secret = '';
      const r = await receiver(() => [secret]);
      const hook = await endpoint(store, r.url, ['*']);
      secret = hook.secret;
      await enrolled(store, 'dev-bbbbbbbb');
      const change = (set: Record<string, string>) =>
        labelDevice(actionDeps(store), ADMIN, { id: 'dev-bbbbbbbb', change: { ok: true, value: { set } } });
      assert.notEqual(await change({ site: 'berlin', line: '3' }), 'unknown');
      assert.notEqual(await change({ site: 'berlin' }), 'unknown');
      const { sender: s } = sender(store);
      s.start();
      const [got] = await r.waitFor(1);
      await s.stop();
      assert.equal(got?.payload.type, 'device.labelled');
      assert.deepEqual(got?.payload.data, {
        account: 'local:admin',
        client: '192.0.2.1',
        device: 'dev-bbbbbbbb',
        keys: 'line,site',
      });
      assert.equal(r.received.length, 1, 'the second change changed nothing, and sent nothing');
      await r.close();
      await store.close();
    });

    test('a 500 is retried with the same message id; the attempts are logged', async () => {
      const store = await open();
      let secret = '';
      const r = await receiver(
        () => [secret],
        (n) => (n === 0 ? 500 : 200),
      );
      const hook = await endpoint(store, r.url);
      secret = hook.secret;
      assert.equal(await testWebhook(webhookDeps(store), ADMIN, hook.id), 'done');
      const { sender: s, logger } = sender(store);
      s.start();
      const got = await r.waitFor(2);
      await s.stop();
      assert.equal(got[0]?.id, got[1]?.id);
      assert.equal(got[0]?.body, got[1]?.body, 'the same bytes on every attempt');
      assert.equal(got[1]?.payload.type, 'webhook.test');
      const attempts = await store.webhookAttempts(hook.id, 10);
      assert.deepEqual(
        attempts.map((a) => a.statusCode),
        [200, 500],
      );
      assert.deepEqual(
        logger.records.filter((l) => l.event === 'webhook.attempted').map((l) => l.outcome),
        ['retrying', 'delivered'],
      );
      // Redelivery: the same message id again.
      const delivery = String(attempts[0]?.delivery);
      assert.equal(await redeliverMessage(webhookDeps(store), ADMIN, { id: hook.id, delivery }), 'done');
      s.start();
      const again = await r.waitFor(3);
      await s.stop();
      assert.equal(again[2]?.id, got[0]?.id);
      await r.close();
      await store.close();
    });

    test('a receiver that hangs times out, and the attempt is retried later', async () => {
      const store = await open();
      const r = await receiver(
        () => [],
        () => 'hang',
      );
      // Closed whatever the outcome: a hanging receiver left open keeps the test file from exiting.
      try {
        const hook = await endpoint(store, r.url);
        await testWebhook(webhookDeps(store), ADMIN, hook.id);
        const { sender: s } = sender(store, { timeoutMs: 300, retryDelaysMs: [60_000] });
        s.start();
        await until(async () => (await store.webhookAttempts(hook.id, 1)).length > 0);
        await s.stop();
        const [attempt] = await store.webhookAttempts(hook.id, 1);
        assert.deepEqual(
          { error: attempt?.error, status: attempt?.status },
          { error: 'timeout', status: 'pending' },
          'timed out, and a retry is due',
        );
        assert.ok((attempt?.durationMs ?? 0) >= 300 && (attempt?.durationMs ?? 0) < 2000, String(attempt?.durationMs));
      } finally {
        await r.close();
        await store.close();
      }
    });

    test('a redirect is not followed: a 3xx is a failed attempt', async () => {
      const store = await open();
      const target = await receiver(() => []);
      const r = await receiver(
        () => [],
        (_n, _req, res) => {
          res.writeHead(307, { location: target.url }).end();
          return 'handled';
        },
      );
      const hook = await endpoint(store, r.url);
      await testWebhook(webhookDeps(store), ADMIN, hook.id);
      const { sender: s } = sender(store, { retryDelaysMs: [] });
      s.start();
      await until(async () => (await store.webhookAttempts(hook.id, 1)).length > 0);
      await s.stop();
      const [attempt] = await store.webhookAttempts(hook.id, 1);
      assert.equal(attempt?.statusCode, 307);
      assert.equal(attempt?.status, 'failed', 'the schedule is spent: failed');
      assert.equal(target.hits, 0, 'the redirect target never heard of it');
      assert.equal((await store.webhook(hook.id))?.failures, 1);
      await r.close();
      await target.close();
      await store.close();
    });

    test('after a rotation both secrets sign, and each verifies with the library', async () => {
      const store = await open();
      const secrets: string[] = [];
      const r = await receiver(() => secrets);
      const hook = await endpoint(store, r.url);
      const rotated = await rotateWebhookSecret(webhookDeps(store), ADMIN, hook.id);
      assert.notEqual(rotated, 'unknown');
      if (rotated === 'unknown') return;
      secrets.push(hook.secret, rotated.secret);
      await testWebhook(webhookDeps(store), ADMIN, hook.id);
      const { sender: s } = sender(store);
      s.start();
      const got = await r.waitFor(2);
      await s.stop();
      assert.equal(got[0]?.signature.split(' ').length, 2);
      assert.ok(got[0]?.signature.split(' ').every((sig) => sig.startsWith('v1,')));
      await r.close();
      await store.close();
    });

    test('an endpoint failing for PADDOCK_WEBHOOK_DISABLE_AFTER is disabled, as system, and audited', async () => {
      const store = await open();
      const r = await receiver(
        () => [],
        () => 503,
      );
      const hook = await endpoint(store, r.url);
      await testWebhook(webhookDeps(store), ADMIN, hook.id);
      const { sender: s, logger } = sender(store, { disableAfterMs: 0, retryDelaysMs: [10_000] });
      s.start();
      await until(async () => !(await store.webhook(hook.id))?.enabled);
      await s.stop();
      const w = await store.webhook(hook.id);
      assert.equal(w?.enabled, false);
      assert.equal(w?.lastOutcome, '503');
      assert.deepEqual(
        logger.records.filter((l) => l.event === 'webhook.disabled').map((l) => [l.account, l.webhook, l.reason]),
        [['system', hook.id, 'failing']],
      );
      await r.close();
      await store.close();
    });

    test('finished deliveries are pruned after the retention; pending ones stay', async () => {
      const store = await open();
      const r = await receiver(() => []);
      const hook = await endpoint(store, r.url);
      await testWebhook(webhookDeps(store), ADMIN, hook.id);
      const { sender: s } = sender(store);
      s.start();
      await r.waitFor(0);
      await until(async () => (await store.webhookAttempts(hook.id, 1))[0]?.status === 'delivered');
      await s.stop();
      await store.disableWebhook(hook.id);
      await testWebhook(webhookDeps(store), ADMIN, hook.id);
      assert.equal(await store.pruneWebhooks(Date.now() + 1, 100), 1);
      assert.deepEqual(await store.webhookAttempts(hook.id, 10), []);
      assert.equal((await store.outboxDepth()).pending, 1, 'the pending one (disabled endpoint) stays');
      await r.close();
      await store.close();
    });
  });
}

suite('sqlite', async () => openSqliteStore(':memory:'));
const pgUp = await postgresAvailable();
suite('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }), !pgUp && SKIP_REASON);
after(async () => {
  if (pgUp) await dropSchemas();
});
