// docs/contract.md section 23, "the heap holds" (issue 42): the real `paddock serve` process with
// its heap capped at 64 MiB, 5,000 connections stalled inside bodies on the routes open without a
// credential (`POST /v1/enroll` over TLS, `/login` and `/oidc/backchannel-logout` in plain HTTP),
// each declaring 64 KiB and sending 16 KiB, from 32 loopback addresses, and 400 more from one
// address alone. The review ended such a process at 1,105. Here it stays up, an enrolled device's
// uploads are stored and the break-glass admin signs in throughout; the lone address is told 429.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Staller, stall } from '../../bench/stall.ts';
import { openFileLimit } from '../../src/server/connections.ts';
import { OPEN_BODIES_PER_CLIENT } from '../../src/server/open_bodies.ts';
import { startFakeProvider } from '../support/fake_oidc_provider.ts';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { PROCESS_PASSWORD, serveEnv, signInAndEnroll } from './process_load.ts';

const STALLED = 5_000;
const LONE = 400;

/** One request over a connection of its own: status, headers; status 0 when the connection failed. */
function fresh(port: number, path: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; cookie: string }>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      res.resume();
      const cookie = (res.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
      res.on('end', () => resolve({ status: res.statusCode ?? 0, cookie }));
      res.on('error', () => resolve({ status: 0, cookie: '' }));
    });
    req.on('error', () => resolve({ status: 0, cookie: '' }));
    req.end(body);
  });
}

test(
  `${STALLED.toLocaleString('en')} bodies stalled on the open routes under a 64 MiB heap: the process lives, a device uploads, the admin signs in`,
  { timeout: 90_000 },
  async (t) => {
    // The staller's sockets are one process's file descriptors (Node raises its soft limit to the hard one).
    assert.ok(openFileLimit() > STALLED + LONE + 512, `open-file limit ${openFileLimit()}: raise it (ulimit -Hn)`);
    const dir = await mkdtemp(join(tmpdir(), 'paddock-heap-'));
    const provider = await startFakeProvider();
    const port = await freePort();
    const p = paddock(['serve'], {
      ...serveEnv(dir, port),
      NODE_OPTIONS: '--max-old-space-size=64 --max-semi-space-size=8',
      PADDOCK_BASE_URL: `http://127.0.0.1:${port}`,
      // The back-channel route reads its bodies only with a provider configured.
      PADDOCK_OIDC_ISSUER: provider.issuer,
      PADDOCK_OIDC_CLIENT_ID: provider.clientId,
      PADDOCK_OIDC_CLIENT_SECRET: provider.clientSecret,
    });
    const stallers: Staller[] = [];
    try {
      await p.waitFor(/serving on/);
      const { credential, view } = await signInAndEnroll(port);
      // One address alone, first (a server at its connection ceiling sheds newcomers still sending their
      // heads): past its cap, answered 429 before its body is read.
      const lone = await stall({
        port,
        addresses: 1,
        from: 200,
        sent: 16_384,
        groups: [{ kind: 'login', count: LONE }],
      });
      stallers.push(lone);
      const third = Math.floor(STALLED / 3);
      // 32 addresses: about 156 bodies each, under the per-address cap, so the heap's ceiling is what holds.
      const spread = await stall({
        port,
        addresses: 32,
        sent: 16_384,
        groups: [
          { kind: 'enroll', count: STALLED - 2 * third },
          { kind: 'login', count: third },
          { kind: 'backchannel', count: third },
        ],
      });
      stallers.push(spread);

      const uploads: number[] = [];
      const signIns: number[] = [];
      for (let i = 0; i < 20; i++) {
        const put = await fresh(
          port,
          `/v1/runs/stalled-${i}`,
          'PUT',
          { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full', 'content-type': 'text/plain' },
          `payload of stalled-${i}\n`.repeat(20),
        );
        uploads.push(put.status);
        if (i % 5 === 0) {
          const login = await fresh(
            port,
            '/login',
            'POST',
            { 'content-type': 'application/x-www-form-urlencoded' },
            new URLSearchParams({ username: 'admin', password: PROCESS_PASSWORD }).toString(),
          );
          const page = await fresh(port, '/devices', 'GET', { cookie: login.cookie });
          signIns.push(login.status === 303 && login.cookie !== '' ? page.status : login.status);
        }
      }
      const [spreadNow, loneNow] = [await spread.report(), await lone.report()];
      const health = await fresh(port, '/healthz', 'GET', {});
      t.diagnostic(
        `spread: ${spread.first.open} of ${spread.first.opened} open once opened, ${spreadNow.open} after the device and admin, answered early ${JSON.stringify(spreadNow.answered)}; lone address: ${JSON.stringify(loneNow.answered)}`,
      );

      assert.equal(p.child.exitCode, null, `the process ended: ${p.output().stderr.slice(-2000)}`);
      assert.equal(health.status, 200);
      // The load is real: the server holds stalled bodies up to its ceiling, it does not refuse them.
      assert.ok(spreadNow.open >= 200, `${spreadNow.open} stalled bodies held`);
      assert.deepEqual(
        uploads.filter((s) => s !== 201),
        [],
        'every upload stored',
      );
      assert.deepEqual(
        signIns.filter((s) => s !== 200),
        [],
        'every sign-in reaches the device list',
      );
      assert.ok(
        (loneNow.answered['429'] ?? 0) >= LONE - OPEN_BODIES_PER_CLIENT - 10,
        `the lone address past its cap: ${JSON.stringify(loneNow.answered)}`,
      );
      assert.doesNotMatch(p.output().stderr, /heap out of memory/i);
      // Every upload acknowledged is there to be read, the stalled bodies still held.
      assert.deepEqual(await view(uploads.map((_, i) => `stalled-${i}`)), []);
    } finally {
      for (const s of stallers) await s.stop();
      p.child.kill('SIGKILL');
      await p.exited;
      await provider.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
);
