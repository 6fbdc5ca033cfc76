// POST /v1/enroll is open without a credential: a refused token is logged each time as
// `enroll.refused` but audited at most once a minute per client address, with its count
// (docs/contract.md section 23); a good token still enrolls, and is audited as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { harness } from '../support/harness.ts';

test('100 guessed tokens: 100 log records, one audit row (count 1); the next minute carries the rest', async () => {
  const h = await harness();
  const enroll = async (token: string) => {
    const res = await h.control('/v1/enroll', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const statuses = new Set<number>();
  for (let i = 0; i < 100; i++) statuses.add(await enroll(i % 2 ? `guess-${i}` : `not a token ${i}`));
  assert.deepEqual([...statuses], [401]);
  assert.equal(h.logs.filter((r) => r.event === 'enroll.refused').length, 100);
  const rows = async () => {
    await h.flushAudit();
    return (await h.store.auditPage({ event: 'enroll.refused' }, { limit: 10 })).items
      .reverse()
      .map((r) => [r.client, r.detail]);
  };
  assert.deepEqual(await rows(), [['198.51.100.9', 'count=1']]);
  h.clock.advance(60_000);
  await enroll('one more');
  assert.deepEqual(await rows(), [
    ['198.51.100.9', 'count=1'],
    ['198.51.100.9', 'count=100'],
  ]);
  await h.close();
});
