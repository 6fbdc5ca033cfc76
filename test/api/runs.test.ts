// GET /api/v1/runs (docs/contract.md section 11): the console's run list as JSON, scoped to the token's
// account, with its filters and cursor; strict parameters as problems naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleAccessToken, enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const get = async (h: Harness, path: string, bearer: string) =>
  h.request(path, { headers: { authorization: `Bearer ${bearer}` } });

test('runs as JSON: scoped, filtered, newest first, paged by the cursor', async () => {
  const h = await harness();
  try {
    const mine = await enrollDevice(h, ACCOUNTS.user.subject);
    const theirs = await enrollDevice(h, ACCOUNTS.other.subject);
    for (let i = 0; i < 55; i++) await upload(h, mine.credential, `r${i}`, `run ${i}`, i % 2 ? 'minimal' : 'full');
    await upload(h, theirs.credential, 'not-mine', 'x');
    const bearer = (await consoleAccessToken(h, ACCOUNTS.user)).value;
    const first = (await (await get(h, '/api/v1/runs', bearer)).json()) as {
      items: Array<{ id: string; device: string; privacy: string; uploaded_at: string; flagged: boolean }>;
      next?: string;
    };
    assert.equal(first.items.length, 50);
    assert.equal(first.items[0]?.id, 'r54');
    assert.ok(
      first.items.every((r) => r.device === mine.device),
      'only its own',
    );
    assert.ok(first.next);
    const second = (await (await get(h, `/api/v1/runs?before=${first.next}`, bearer)).json()) as {
      items: Array<{ id: string }>;
      next?: string;
    };
    assert.deepEqual(
      second.items.map((r) => r.id),
      ['r4', 'r3', 'r2', 'r1', 'r0'],
    );
    assert.equal(second.next, undefined);
    const minimal = (await (await get(h, '/api/v1/runs?privacy=minimal', bearer)).json()) as {
      items: Array<{ privacy: string }>;
    };
    assert.equal(minimal.items.length, 27);
    assert.ok(minimal.items.every((r) => r.privacy === 'minimal'));
    const other = (await (await get(h, `/api/v1/runs?device=${theirs.device}`, bearer)).json()) as { items: unknown[] };
    assert.deepEqual(other.items, [], "another account's device: nothing, as in the console");
  } finally {
    await h.close();
  }
});

test('bad run parameters are 400 problems naming the field', async () => {
  const h = await harness();
  try {
    const bearer = (await consoleAccessToken(h, ACCOUNTS.user)).value;
    for (const [path, field] of [
      ['/api/v1/runs?privacy=secret', 'privacy'],
      ['/api/v1/runs?since=2026-02-30', 'since'],
      ['/api/v1/runs?flagged=no', 'flagged'],
      ['/api/v1/runs?device=%3Cx%3E', 'device'],
      ['/api/v1/runs?limit=5', 'limit'],
    ] as const) {
      const res = await get(h, path, bearer);
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(((await res.json()) as { field: string }).field, field, path);
    }
    assert.equal((await h.request('/api/v1/runs')).status, 401);
  } finally {
    await h.close();
  }
});
