/**
 * Uploads come first (docs/decisions.md): while the server's event loop is busy the sender claims
 * a few deliveries at a time, once per pause, and still delivers every one; when it is not busy it
 * uses its whole concurrency. The event-loop gauge reports busy once the loop has been held up.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { EVENTS } from '../../src/events/catalogue.ts';
import { note } from '../../src/events/note.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { eventLoopGauge, type LoadGauge } from '../../src/webhooks/load.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { endpoint, receiver, sender } from './world.ts';

const MESSAGES = 12;

/** Sends MESSAGES messages to one endpoint through a sender with `load`; the most requests the receiver had open at once. */
async function deliverAll(store: Store, load: LoadGauge): Promise<number> {
  let secret = '';
  let open = 0;
  let most = 0;
  // Each answer waits 30 ms, so requests sent together overlap at the receiver.
  const r = await receiver(
    () => [secret],
    (_n, _req, res) => {
      most = Math.max(most, ++open);
      setTimeout(() => {
        open--;
        res.writeHead(204).end();
      }, 30);
      return 'handled';
    },
  );
  const hook = await endpoint(store, r.url, ['*']);
  secret = hook.secret;
  const ids = new Set<string>();
  for (let i = 0; i < MESSAGES; i++) {
    const n = note(
      EVENTS.deviceRevoked,
      { account: 'local:admin', client: '192.0.2.1', device: `dev-${i}` },
      Date.now(),
    );
    ids.add(n.id);
    assert.ok(await store.enqueueTo(hook.id, n));
  }
  const { sender: s } = sender(store, { load, busyBatch: 2, busyPauseMs: 20, concurrency: 8 });
  s.start();
  const got = await r.waitFor(MESSAGES);
  await s.stop();
  assert.deepEqual(new Set(got.map((g) => g.id)), ids);
  assert.deepEqual(await store.outboxDepth(), { pending: 0, oldest: null });
  await r.close();
  return most;
}

function suite(name: string, open: () => Promise<Store>, skip?: string | false) {
  describe(`webhook sender under load: ${name}`, { skip }, () => {
    test('busy: at most busyBatch deliveries at a time, and every message still arrives', async () => {
      const store = await open();
      let asked = 0;
      const most = await deliverAll(store, {
        busy: () => (asked++, true),
        spent: () => undefined,
        stop: () => undefined,
      });
      assert.ok(asked > 0);
      assert.ok(most <= 2, `${most} requests at once while busy`);
      await store.close();
    });

    test('not busy: the whole concurrency', async () => {
      const store = await open();
      const most = await deliverAll(store, { busy: () => false, spent: () => undefined, stop: () => undefined });
      assert.ok(most > 2, `${most} requests at once while not busy`);
      await store.close();
    });
  });
}

suite('sqlite', async () => openSqliteStore(':memory:'));
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
suite('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }), !available && SKIP_REASON);

test('the event-loop gauge reports busy after the loop was held up', async () => {
  const gauge = eventLoopGauge(0.5);
  try {
    await new Promise((r) => setTimeout(r, 150));
    gauge.busy();
    const until = performance.now() + 300;
    while (performance.now() < until); // the loop held up, as by a burst of requests
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(gauge.busy(), true);
  } finally {
    gauge.stop();
  }
});

test("the gauge leaves the sender's own work out: a loop held up by the sender alone is not busy", async () => {
  const gauge = eventLoopGauge(0.5);
  try {
    await new Promise((r) => setTimeout(r, 150));
    gauge.busy();
    const started = performance.now();
    while (performance.now() < started + 300); // the sender's own work, as it reports it
    gauge.spent(performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(gauge.busy(), false);
  } finally {
    gauge.stop();
  }
});
