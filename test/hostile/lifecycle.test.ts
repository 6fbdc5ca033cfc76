// The real `paddock serve` process: ready means ready, a stop ends in bounded time with every
// acknowledged upload kept, and kill -9 during uploads loses nothing that was acknowledged.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { uploadLoad, serveEnv, signInAndEnroll } from './process_load.ts';

test('readiness: no request that follows the first 200 from /healthz gets 503 (OIDC configured)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-ready-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // An issuer makes the start load the OIDC client, which once opened the window this test closes.
  const p = paddock(['serve'], {
    ...serveEnv(dir, port),
    PADDOCK_OIDC_ISSUER: 'http://127.0.0.1:9/issuer',
    PADDOCK_OIDC_CLIENT_ID: 'paddock',
  });
  try {
    const seen: number[] = [];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !seen.includes(200)) {
      const status = await fetch(`${base}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 0) seen.push(status);
    }
    assert.ok(seen.includes(200), `never ready: ${seen.join(',')}`);
    assert.ok(
      seen.every((s) => s === 200 || s === 503),
      seen.join(','),
    );
    const after = await Promise.all(
      Array.from({ length: 60 }, (_, i) => fetch(`${base}${['/healthz', '/login', '/v1/discover'][i % 3]}`)),
    );
    assert.deepEqual(
      after.map((r) => r.status).filter((s) => s !== 200),
      [],
    );
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
    await rm(dir, { recursive: true, force: true });
  }
});

test('shutdown: SIGTERM during an upload load finishes what is in flight, exits 0, keeps every acknowledged upload', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-term-'));
  const port = await freePort();
  let p = paddock(['serve'], serveEnv(dir, port));
  try {
    await p.waitFor(/serving on/);
    const { credential, view } = await signInAndEnroll(port);
    // A client that stalls mid-header must not hold the stop open past the drain time.
    const stalled = connect(port, '127.0.0.1', () => stalled.write('GET /login HTTP/1.1\r\nHost: 127'));
    stalled.on('error', () => undefined);
    const load = uploadLoad(port, credential, 1_500);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const stopAt = Date.now();
    p.child.kill('SIGTERM');
    const code = await p.exited;
    const stoppedIn = Date.now() - stopAt;
    const acknowledged = await load;
    assert.equal(code, 0, p.output().stderr);
    assert.ok(stoppedIn < 13_000, `stopped in ${stoppedIn} ms`);
    assert.ok(acknowledged.length > 0, 'some uploads were acknowledged before the stop');

    p = paddock(['serve'], serveEnv(dir, port));
    await p.waitFor(/serving on/);
    const missing = await view(acknowledged);
    assert.deepEqual(missing, []);
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
    await rm(dir, { recursive: true, force: true });
  }
});

test('durability: kill -9 during uploads, three times in a row, loses no acknowledged upload', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-kill-'));
  const port = await freePort();
  let p = paddock(['serve'], serveEnv(dir, port));
  try {
    await p.waitFor(/serving on/);
    const { credential, view } = await signInAndEnroll(port);
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const load = uploadLoad(port, credential, 800, `k${round}-`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      p.child.kill('SIGKILL');
      await p.exited;
      acknowledged.push(...(await load));
      p = paddock(['serve'], serveEnv(dir, port));
      await p.waitFor(/serving on/);
    }
    assert.ok(acknowledged.length > 0);
    assert.deepEqual(await view(acknowledged), []);
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
    await rm(dir, { recursive: true, force: true });
  }
});
