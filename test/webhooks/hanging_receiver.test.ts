/**
 * A receiver that hangs does not slow uploads (docs/contract.md section 13: delivery runs off the
 * request path, with bounded concurrency). Measured as a functional bound, not a benchmark: the
 * 95th percentile of upload times with three endpoints subscribed to run.stored, all answering
 * never, stays within a generous bound of the same uploads with none; bounded in count and time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { endpoint, receiver, sender } from './world.ts';

const UPLOADS = 60;

async function p95(h: Harness, credential: string, prefix: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    const started = performance.now();
    const res = await upload(h, credential, `${prefix}-${i}`, `line ${i}\n`.repeat(50));
    times.push(performance.now() - started);
    assert.equal(res.status, 201);
  }
  times.sort((a, b) => a - b);
  return times[Math.ceil(UPLOADS * 0.95) - 1] ?? Infinity;
}

test(
  'a receiver that hangs does not slow uploads: their p95 stays within a generous bound',
  { timeout: 60_000 },
  async () => {
    const h = await harness({ store: openSqliteStore(':memory:') });
    const hanging = await receiver(
      () => [],
      () => 'hang',
    );
    const { sender: s } = sender(h.store, { clock: h.clock, timeoutMs: 3_000, concurrency: 8 });
    s.start();
    try {
      const { credential } = await enrollDevice(h, 'local:admin');
      await p95(h, credential, 'warm');
      const without = await p95(h, credential, 'without');
      for (let i = 0; i < 3; i++) await endpoint(h.store, hanging.url, ['run.stored']);
      const withHanging = await p95(h, credential, 'with');
      // The sender works beside the uploads, not inside them: its first requests may land just after.
      for (let i = 0; i < 100 && hanging.hits === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(hanging.hits > 0, 'deliveries reached the hanging receiver (and hang there)');
      assert.ok((await h.store.outboxDepth()).pending > 0, 'deliveries wait in the outbox, not in the uploads');
      const bound = Math.max(4 * without, without + 100);
      assert.ok(
        withHanging <= bound,
        `p95 ${withHanging.toFixed(1)} ms with a hanging receiver, ${without.toFixed(1)} ms without`,
      );
    } finally {
      await s.stop();
      await hanging.close();
      await h.close();
    }
  },
);
