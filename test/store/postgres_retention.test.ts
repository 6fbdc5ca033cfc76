// Retention on a shared PostgreSQL store: the sweep lease across two instances (two pools), and a
// batch that removes a chunked run's chunks with it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { CHUNK_SIZE } from '../../src/store/runs.ts';
import { admin, dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'postgres: two instances (two pools) race for the sweep lease: one holds it; the other gets it after release or expiry',
  { skip: !available && SKIP_REASON },
  async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([openPostgresStore(PG_URL, { schema }), openPostgresStore(PG_URL, { schema })]);
    try {
      for (let round = 0; round < 5; round++) {
        const now = round * 1000;
        const taken = await Promise.all([
          a.takeLease('sweep', 'a', now, now + 500),
          b.takeLease('sweep', 'b', now, now + 500),
        ]);
        assert.equal(taken.filter(Boolean).length, 1, `round ${round}: ${taken}`);
        const [holder, other] = taken[0] ? (['a', 'b'] as const) : (['b', 'a'] as const);
        const stores = { a, b };
        assert.equal(await stores[other].takeLease('sweep', other, now + 499, now + 999), false, 'held');
        if (round % 2) await stores[holder].releaseLease('sweep', holder);
        // Released (odd rounds) or expired (even rounds, at now + 500): the other instance takes it.
        const at = round % 2 ? now + 1 : now + 500;
        assert.equal(await stores[other].takeLease('sweep', other, at, at + 10), true);
        await stores[other].releaseLease('sweep', other);
      }
    } finally {
      await a.close();
      await b.close();
    }
  },
);

test(
  'postgres: a retention batch removes a chunked run with its chunks',
  { skip: !available && SKIP_REASON },
  async () => {
    const schema = freshSchema();
    const store = await openPostgresStore(PG_URL, { schema });
    try {
      await store.createEnrollToken({ hash: 't', owner: 'oidc:ann', createdBy: 'x', createdAt: 0, expiresAt: 1e13 });
      assert.ok(await store.enrollDevice({ tokenHash: 't', now: 1, deviceId: 'd', name: 'n', credentialHash: 'c' }));
      const body = new Uint8Array(3 * CHUNK_SIZE).fill(7);
      const sha256 = createHash('sha256').update(body).digest('hex');
      const run = { device: 'd', contentType: 'application/octet-stream', size: body.length, body, sha256 };
      assert.equal(await store.putRun({ ...run, id: 'old', privacy: 'full', uploadedAt: 10 }), 'stored');
      assert.equal(await store.putRun({ ...run, id: 'new', privacy: 'full', uploadedAt: 20 }), 'stored');
      const chunks = async () =>
        Number((await admin((c) => c.query(`SELECT count(*) AS n FROM "${schema}".run_chunks`))).rows[0]?.n);
      assert.equal(await chunks(), 6);
      assert.deepEqual(await store.deleteExpiredRuns('full', 15, 100), { runs: 1, bytes: body.length });
      assert.equal(await chunks(), 3);
    } finally {
      await store.close();
    }
  },
);
