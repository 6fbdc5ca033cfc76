// GET /healthz answered before the adapter: the same answer as the interface's own route, and only
// for requests the admin side would answer.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { healthFastPath } from '../../src/server/health_fast_path.ts';
import { sideResolver } from '../../src/host/host_router.ts';
import { listen } from '../../src/server/listen.ts';
import { startServer } from '../../src/server/serve.ts';

/** Status, body and headers of a response, without the ones that vary per connection. */
async function answer(res: Response) {
  const headers = Object.fromEntries(
    [...res.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
  );
  return { status: res.status, body: await res.text(), headers };
}

test('the fast path answers exactly what the route answers (a query string takes the full stack)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-fast-'));
  const config = loadConfig({
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_ADMIN_PASSWORD: 'fast path password',
  });
  const server = await startServer(config, { logger: memoryLogger(), announce: () => undefined });
  try {
    const fast = await answer(await fetch(`${server.url}/healthz`));
    const routed = await answer(await fetch(`${server.url}/healthz?via=router`));
    assert.deepEqual(fast, routed);
    assert.equal(fast.status, 200);
    assert.deepEqual(JSON.parse(fast.body), { ok: true, version: config.version });
    assert.equal(fast.headers['content-security-policy'], "default-src 'none'");
    assert.equal(fast.headers['cache-control'], 'no-store');
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('only GET /healthz on the admin side is taken; everything else reaches the handler', async () => {
  const sideOf = sideResolver({ adminHost: 'admin.test', controlHost: 'control.test', tls: false });
  const server = await listen(() => new Response('from the handler', { status: 418 }), {
    host: '127.0.0.1',
    port: 0,
    fastPath: healthFastPath('1.2.3', sideOf),
  });
  const port = (server.address() as AddressInfo).port;
  // node:http, since fetch does not let a caller choose the Host header.
  const get = (path: string, host: string, method = 'GET') =>
    new Promise<{ status: number; text: () => Promise<string> }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: async () => body }));
      })
        .on('error', reject)
        .end();
    });
  try {
    const health = await get('/healthz', 'admin.test');
    assert.equal(health.status, 200);
    assert.equal(await health.text(), '{"ok":true,"version":"1.2.3"}\n');
    for (const [path, host, method] of [
      ['/healthz', 'control.test', 'GET'],
      ['/healthz', 'admin.test', 'HEAD'],
      ['/healthz', 'admin.test', 'POST'],
      ['/healthz/', 'admin.test', 'GET'],
      ['/healthz?x=1', 'admin.test', 'GET'],
      ['/devices', 'admin.test', 'GET'],
    ] as const) {
      assert.equal((await get(path, host, method)).status, 418, `${method} ${path} on ${host}`);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('listening on [::1]: the console, /healthz and discovery answer there, and so does the control API', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-v6-'));
  const config = loadConfig({
    PADDOCK_LISTEN: '[::1]:0',
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_ADMIN_PASSWORD: 'ipv6 loopback password',
  });
  const server = await startServer(config, { logger: memoryLogger(), announce: () => undefined });
  try {
    assert.match(server.url, /^http:\/\/\[::1\]:\d+$/);
    for (const path of ['/login', '/healthz', '/healthz?full', '/v1/discover']) {
      assert.equal((await fetch(`${server.url}${path}`)).status, 200, path);
    }
    const enroll = await fetch(`${server.url}/v1/enroll`, { method: 'POST', body: '{"token":""}' });
    assert.equal(enroll.status, 400);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
