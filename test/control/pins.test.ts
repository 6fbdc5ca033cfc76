// GET /v1/pins and the Paddock-Pins header of every control answer (docs/contract.md section 16):
// the set current first, its digest the first 16 hex digits of SHA-256 over the pins joined by ",",
// on successes, refusals, 404s and 405s alike, and both following the set as it changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createControlApp } from '../../src/control/app.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { fakeClock } from '../support/fake_clock.ts';

const A = `sha256/${'A'.repeat(43)}=`;
const B = `sha256/${'B'.repeat(43)}=`;
const C = `sha256/${'C'.repeat(43)}=`;
// Worked out apart from the code under test (Python's hashlib), so the two cannot share a mistake.
const DIGEST_A_B = '952fcd76c8a7be90';

async function world() {
  const store = openSqliteStore(':memory:');
  let pins: readonly string[] = [A, B];
  const app = createControlApp({ store, logger: memoryLogger(), clock: fakeClock(Date.now()), pins: () => pins });
  return {
    app,
    set: (next: readonly string[]) => void (pins = next),
    close: () => store.close(),
  };
}

test('GET /v1/pins: 200, the pins current first, and the digest in Paddock-Pins', async () => {
  const w = await world();
  try {
    const res = await w.app.request('http://127.0.0.1/v1/pins');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await res.json(), { pins: [A, B] });
    assert.equal(res.headers.get('paddock-pins'), DIGEST_A_B);
    // A query changes nothing; HEAD answers the headers alone.
    assert.deepEqual(await (await w.app.request('http://127.0.0.1/v1/pins?x=1&pins=evil')).json(), { pins: [A, B] });
    const head = await w.app.request('http://127.0.0.1/v1/pins', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('paddock-pins'), DIGEST_A_B);
  } finally {
    await w.close();
  }
});

test('every control answer carries Paddock-Pins: refusals, 404 and 405 too', async () => {
  const w = await world();
  try {
    const answers = await Promise.all([
      w.app.request('http://127.0.0.1/v1/enroll', { method: 'POST', body: '{"token":"nope"}' }),
      w.app.request('http://127.0.0.1/v1/enroll', { method: 'POST', body: 'not json' }),
      w.app.request('http://127.0.0.1/v1/runs/r1', { method: 'PUT', body: 'x' }),
      w.app.request('http://127.0.0.1/v1/requests/r_1/decline', { method: 'POST', body: '{}' }),
      w.app.request('http://127.0.0.1/v1/pins', { method: 'POST', body: '{}' }),
      w.app.request('http://127.0.0.1/v1/nothing'),
    ]);
    assert.deepEqual(
      answers.map((res) => res.status),
      [401, 400, 401, 401, 405, 404],
    );
    for (const res of answers) assert.equal(res.headers.get('paddock-pins'), DIGEST_A_B, String(res.status));
    assert.equal(answers[4]?.headers.get('allow'), 'GET, HEAD');
  } finally {
    await w.close();
  }
});

test('after a rotation the set and the header follow at once; a set of one (a configured key) too', async () => {
  const w = await world();
  try {
    w.set([B, C]);
    const res = await w.app.request('http://127.0.0.1/v1/pins');
    assert.deepEqual(await res.json(), { pins: [B, C] });
    const digest = res.headers.get('paddock-pins');
    assert.match(digest ?? '', /^[0-9a-f]{16}$/);
    assert.notEqual(digest, DIGEST_A_B);
    w.set([A]);
    const one = await w.app.request('http://127.0.0.1/v1/pins');
    assert.deepEqual(await one.json(), { pins: [A] });
    assert.equal(one.headers.get('paddock-pins'), 'cc1d1d59c28e76e3');
  } finally {
    await w.close();
  }
});
