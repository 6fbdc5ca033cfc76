// Collection requests (docs/contract.md section 15) against the real `paddock serve` process, as an
// attacker and a bad network would treat them: SIGTERM with 1,000 requests held answers them all at
// once and stops within the drain; kill -9 while devices answer their requests loses none and
// fulfils none twice; raw sockets on the new routes never get a 500 or a stack.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createCollection } from '../../src/actions/collections.ts';
import { systemClock } from '../../src/clock.ts';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { exchange, statuses } from '../support/live.ts';

const METRICS = 'a-metrics-token-for-the-held-requests-test';

/** A token for `uses` devices, written to the store before the server starts. */
async function seedToken(dataDir: string, uses: number): Promise<string> {
  const store = openSqliteStore(dataDir);
  const token = randomToken(32);
  await store.createEnrollToken({
    hash: secretHash(token),
    owner: 'oidc:fleet',
    createdBy: 'local:admin',
    createdAt: Date.now(),
    expiresAt: Date.now() + 3_600_000,
    uses,
  });
  await store.close();
  return token;
}

async function enrollMany(base: string, token: string, n: number) {
  const devices: Array<{ device: string; credential: string }> = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, async () => {
        const res = await fetch(`${base}/v1/enroll`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token }),
        });
        assert.equal(res.status, 201);
        return (await res.json()) as { device: string; credential: string };
      }),
    );
    devices.push(...batch);
  }
  return devices;
}

/** One GET /v1/requests over a connection of its own: status, body, and when it was answered. */
function held(port: number, credential: string, wait: number): Promise<{ status: number; body: string; at: number }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/v1/requests?wait=${wait}`,
        agent: false,
        headers: { authorization: `Bearer ${credential}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, at: Date.now() }));
        res.on('error', () => resolve({ status: 0, body, at: Date.now() }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: '', at: Date.now() }));
    req.end();
  });
}

async function heldNow(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).text();
  return Number(/^paddock_requests_held (\d+)$/m.exec(text)?.[1] ?? -1);
}

test(
  'SIGTERM with 1,000 requests held: every one answered at once (an empty list), the process exits 0 within the drain',
  { timeout: 120_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paddock-held-'));
    const dataDir = join(dir, 'data');
    const port = await freePort();
    try {
      const token = await seedToken(dataDir, 500);
      const p = paddock(['serve'], {
        PADDOCK_LISTEN: `127.0.0.1:${port}`,
        PADDOCK_DATA_DIR: dataDir,
        PADDOCK_ADMIN_PASSWORD: 'a held requests password',
        PADDOCK_METRICS_TOKEN: METRICS,
      });
      await p.waitFor(/serving on/);
      const base = `http://127.0.0.1:${port}`;
      const devices = await enrollMany(base, token, 500);
      // Two held per device: the most one device may hold.
      const answers = devices.flatMap((d) => [held(port, d.credential, 60), held(port, d.credential, 60)]);
      let n = 0;
      for (let i = 0; i < 200 && n < 1000; i++) {
        n = await heldNow(base);
        if (n < 1000) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(n, 1000, 'the server holds all of them');
      const sent = Date.now();
      p.child.kill('SIGTERM');
      const all = await Promise.all(answers);
      const code = await p.exited;
      const stopped = Date.now() - sent;
      assert.equal(code, 0, p.output().stderr);
      assert.deepEqual([...new Set(all.map((a) => a.status))], [200]);
      assert.ok(
        all.every((a) => a.body === '{"requests":[]}'),
        'an empty list each',
      );
      const slowest = Math.max(...all.map((a) => a.at - sent));
      assert.ok(slowest < 5_000, `answered within ${slowest} ms of SIGTERM`);
      assert.ok(stopped < 10_000, `stopped in ${stopped} ms, within the 10 s drain`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);

test(
  'kill -9 while devices answer their requests: after a restart and their retries, every request is fulfilled once, by its own run',
  { timeout: 120_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paddock-kill-requests-'));
    const dataDir = join(dir, 'data');
    const port = await freePort();
    const env = {
      PADDOCK_LISTEN: `127.0.0.1:${port}`,
      PADDOCK_DATA_DIR: dataDir,
      PADDOCK_ADMIN_PASSWORD: 'a kill -9 password',
    };
    const base = `http://127.0.0.1:${port}`;
    try {
      const token = await seedToken(dataDir, 60);
      let p = paddock(['serve'], env);
      await p.waitFor(/serving on/);
      const devices = await enrollMany(base, token, 60);
      // The collection is written by a second connection to the same database (WAL), as a second
      // process would; the devices ask without waiting, so no wake-up is needed.
      const side = openSqliteStore(dataDir);
      const created = await createCollection(
        { store: side, logger: memoryLogger(), clock: systemClock },
        { subject: 'local:admin', admin: true, client: null },
        { privacy: 'full', reason: 'kill -9 test', scope: { devices: devices.map((d) => d.device) } },
      );
      await side.close();
      assert.ok(created.ok);
      const asked = await Promise.all(
        devices.map(async (d) => {
          const res = await fetch(`${base}/v1/requests`, { headers: { authorization: `Bearer ${d.credential}` } });
          const [r] = ((await res.json()) as { requests: Array<{ id: string }> }).requests;
          assert.ok(r);
          return { ...d, request: r.id, run: `answer-${d.device}` };
        }),
      );
      const put = (d: (typeof asked)[number]) =>
        fetch(`${base}/v1/runs/${d.run}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${d.credential}`, 'x-privacy-level': 'full', 'x-collection': d.request },
          body: `the run of ${d.device}\n`.repeat(200),
        }).then(
          (r) => r.status,
          () => 0,
        );
      // Half answer, then the server is killed while the rest are on their way.
      const first = await Promise.all(asked.slice(0, 30).map(put));
      const racing = asked.slice(30).map(put);
      p.child.kill('SIGKILL');
      await p.exited;
      const second = await Promise.all(racing);
      p = paddock(['serve'], env);
      await p.waitFor(/serving on/);
      // Every device retries, acknowledged or not, with the same run id and the same bytes: an
      // acknowledged one is already stored (200); one that was not is stored now (201) or was
      // stored before the kill without its answer arriving (200).
      const before = [...first, ...second];
      const acknowledged = before.filter((status) => status === 201 || status === 200).length;
      assert.ok(acknowledged >= 30, `${acknowledged} acknowledged before the kill`);
      const retried = await Promise.all(asked.map(put));
      assert.ok(
        retried.every((status, i) => status === 200 || (status === 201 && before[i] !== 200 && before[i] !== 201)),
        `retries: ${retried.join(',')}`,
      );
      assert.deepEqual([...new Set(await Promise.all(asked.map(put)))], [200], 'and again: every one 200');
      p.child.kill('SIGTERM');
      await p.exited;
      const store = openSqliteStore(dataDir);
      const targets = (
        await store.collectionTargets(
          { subject: 'local:admin', admin: true },
          created.ok ? created.collection.id : '',
          { limit: 100 },
        )
      ).items;
      await store.close();
      assert.equal(targets.length, 60);
      for (const t of targets) {
        assert.equal(t.state, 'fulfilled', `${t.device}`);
        assert.equal(t.run, `answer-${t.device}`, 'fulfilled by its own run, once');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);

test('the new control routes on raw sockets: malformed requests get a precise 4xx, never a 500 or a stack', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-raw-requests-'));
  const dataDir = join(dir, 'data');
  const port = await freePort();
  try {
    const token = await seedToken(dataDir, 1);
    const p = paddock(['serve'], {
      PADDOCK_LISTEN: `127.0.0.1:${port}`,
      PADDOCK_DATA_DIR: dataDir,
      PADDOCK_ADMIN_PASSWORD: 'raw sockets pw',
    });
    await p.waitFor(/serving on/);
    const [d] = await enrollMany(`http://127.0.0.1:${port}`, token, 1);
    assert.ok(d);
    const auth = `Authorization: Bearer ${d.credential}\r\n`;
    const head = (line: string, extra = '') => `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}`;
    const cases: Array<[string, string, number]> = [
      ['no credential', `${head('GET /v1/requests')}\r\n`, 401],
      ['a wait of 10^40', `${head('GET /v1/requests?wait=1' + '0'.repeat(40), auth)}\r\n`, 400],
      ['a wait of %00', `${head('GET /v1/requests?wait=%00', auth)}\r\n`, 400],
      ['a wait of -0', `${head('GET /v1/requests?wait=-0', auth)}\r\n`, 400],
      ['two waits', `${head('GET /v1/requests?wait=0&wait=0', auth)}\r\n`, 400],
      ['POST to the list', `${head('POST /v1/requests', auth)}Content-Length: 0\r\n\r\n`, 405],
      ['decline: %ZZ id', `${head('POST /v1/requests/%ZZ/decline', auth)}Content-Length: 2\r\n\r\n{}`, 404],
      [
        'decline: a long id',
        `${head(`POST /v1/requests/r_${'9'.repeat(300)}/decline`, auth)}Content-Length: 2\r\n\r\n{}`,
        404,
      ],
      [
        'decline: 9 KiB',
        `${head('POST /v1/requests/r_1/decline', auth)}Content-Length: 9300\r\n\r\n{"reason":"${'x'.repeat(9280)}"}`,
        413,
      ],
      [
        'decline: a bad UTF-8 body',
        `${head('POST /v1/requests/r_1/decline', auth)}Content-Length: 3\r\n\r\n\xff\xfe{`,
        400,
      ],
      [
        'upload: X-Collection with spaces',
        `${head('PUT /v1/runs/x', `${auth}X-Privacy-Level: full\r\nX-Collection: r_1 r_2\r\n`)}Content-Length: 1\r\n\r\nx`,
        400,
      ],
      [
        'upload: X-Collection of 4 KiB',
        `${head('PUT /v1/runs/x', `${auth}X-Privacy-Level: full\r\nX-Collection: ${'r'.repeat(4096)}\r\n`)}Content-Length: 1\r\n\r\nx`,
        400,
      ],
      [
        'upload: X-Collection unknown',
        `${head('PUT /v1/runs/x', `${auth}X-Privacy-Level: full\r\nX-Collection: r_424242\r\n`)}Content-Length: 1\r\n\r\nx`,
        409,
      ],
    ];
    for (const [why, bytes, status] of cases) {
      const raw = await exchange(port, `${bytes}${head('GET /healthz', 'Connection: close\r\n')}\r\n`, 3_000);
      const codes = statuses(raw);
      assert.equal(codes[0], status, `${why}: ${raw.slice(0, 200)}`);
      assert.ok(!codes.includes(500), why);
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, `${why}: no stack`);
    }
    const stored = await fetch(`http://127.0.0.1:${port}/v1/runs/x`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${d.credential}`, 'x-privacy-level': 'full' },
      body: 'x',
    });
    assert.equal(stored.status, 201, 'no refused upload stored anything under its id');
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
