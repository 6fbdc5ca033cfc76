// One port, two host names, two certificates; discovery and the pin; the device client's failures.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { DeviceError, enroll, uploadRun } from '../../src/device_client/client.ts';
import { PinMismatchError } from '../../src/device_client/pinned_request.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import { certificatePin, generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';
import { freePort, httpsRequest, lookup, type TlsFixture, tlsFixture } from '../support/tls_fixture.ts';
import { tlsServerEnv } from '../support/tls_server.ts';

const PASSWORD = 'tls loop password';
let fx: TlsFixture;
let server: RunningServer;
let port: number;
let admin: string;
let control: string;

before(async () => {
  fx = await tlsFixture();
  port = await freePort();
  admin = `https://admin.test:${port}`;
  control = `https://control.test:${port}`;
  const config = loadConfig({ ...tlsServerEnv(fx, port), PADDOCK_ADMIN_PASSWORD: PASSWORD });
  server = await startServer(config, { logger: memoryLogger(), announce: () => undefined });
});
after(() => server.close());

/** Signs in on the admin host; returns the cookie and a CSRF token. */
async function signIn() {
  const login = await httpsRequest(`${admin}/login`, {
    ca: fx.admin.certPem,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: PASSWORD }).toString(),
  });
  assert.equal(login.status, 303);
  const cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  assert.match(String(login.headers['set-cookie']?.[0]), /; Secure;/, 'Secure defaults to true with TLS');
  const page = await httpsRequest(`${admin}/devices`, { ca: fx.admin.certPem, headers: { cookie } });
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '' };
}

async function mintLink(): Promise<string> {
  const { cookie, csrf } = await signIn();
  const res = await httpsRequest(`${admin}/enroll-tokens`, {
    ca: fx.admin.certPem,
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf }).toString(),
  });
  assert.equal(res.status, 200);
  return (/(paddock:\/\/enroll\?[^<]+)</.exec(res.body)?.[1] ?? '').replaceAll('&amp;', '&');
}

describe('one port, two names', () => {
  test('the certificate is chosen by server name; an unknown name gets the admin certificate', async () => {
    const cn = async (servername: string) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
      await once(socket, 'secureConnect');
      const name = socket.getPeerCertificate().subject?.CN;
      socket.destroy();
      return name;
    };
    assert.equal(await cn('admin.test'), 'admin.test');
    assert.equal(await cn('control.test'), 'control.test');
    assert.equal(await cn('elsewhere.test'), 'admin.test');
  });

  test('the link carries the admin name and the pin of the control certificate actually served', async () => {
    const params = new URL(await mintLink()).searchParams;
    assert.equal(params.get('server'), `admin.test:${port}`);
    assert.equal(params.get('pin'), certificatePin(fx.control.certPem));
    assert.equal(server.pin, certificatePin(fx.control.certPem));
  });

  test('routing by host: console and discovery on the admin host, the control API on the control host', async () => {
    const health = await httpsRequest(`${admin}/healthz`, { ca: fx.admin.certPem });
    assert.equal(health.status, 200);
    // Paddock terminates TLS: every answer tells browsers to use HTTPS only (RFC 6797), the health
    // fast path's and the console's alike.
    assert.equal(health.headers['strict-transport-security'], 'max-age=31536000');
    const login = await httpsRequest(`${admin}/login`, { ca: fx.admin.certPem });
    assert.equal(login.headers['strict-transport-security'], 'max-age=31536000');
    assert.equal(login.headers['content-security-policy'], "default-src 'none'");
    const discover = await httpsRequest(`${admin}/v1/discover`, { ca: fx.admin.certPem });
    assert.deepEqual(JSON.parse(discover.body), { control_url: control, name: 'paddock' });
    assert.equal(
      (await httpsRequest(`${admin}/v1/enroll`, { ca: fx.admin.certPem, method: 'POST', body: '{}' })).status,
      404,
    );
    assert.equal((await httpsRequest(`${control}/login`, { ca: fx.control.certPem })).status, 404);
    assert.equal(
      (await httpsRequest(`${control}/v1/enroll`, { ca: fx.control.certPem, method: 'POST', body: '{}' })).status,
      400,
    );
  });

  test('a Host that does not belong to the certificate the request came in on is 421', async () => {
    const wrongSide = await httpsRequest(`${control}/healthz`, {
      ca: fx.control.certPem,
      headers: { host: `admin.test:${port}` },
      servername: 'control.test',
    });
    assert.equal(wrongSide.status, 421);
    assert.equal(wrongSide.headers['content-security-policy'], "default-src 'none'");
    const otherWay = await httpsRequest(`${admin}/healthz`, {
      ca: fx.admin.certPem,
      headers: { host: `control.test:${port}` },
      servername: 'admin.test',
    });
    assert.equal(otherWay.status, 421);
    const stranger = await httpsRequest(`${admin}/healthz`, {
      ca: fx.admin.certPem,
      headers: { host: 'stranger.test' },
      servername: 'admin.test',
    });
    assert.equal(stranger.status, 421);
  });

  test('the dashboard self-test shows the pin and each certificate’s expiry', async () => {
    const { cookie } = await signIn();
    const page = await httpsRequest(`${admin}/`, { ca: fx.admin.certPem, headers: { cookie } });
    assert.match(page.body, /control certificate<\/th>\s*<td>passed<\/td>\s*<td>pin sha256\/[^;]+; expires \d{4}-/);
    assert.match(page.body, /admin certificate<\/th>\s*<td>passed/);
  });
});

describe('device client', () => {
  test('discovery answered: the device connects to control_url, enrolls, uploads a redacted run, and is refused after revoke', async () => {
    const state = await enroll(await mintLink(), 'bench-1', { discoveryCa: fx.admin.certPem, lookup });
    assert.equal(state.controlUrl, control);
    const run = await uploadRun(
      state,
      { bytes: Buffer.from('t=1 operator=alice\n'), contentType: 'text/plain', privacy: 'redacted' },
      { lookup },
    );
    assert.equal(run.status, 201);
    const { cookie, csrf } = await signIn();
    const view = await httpsRequest(`${admin}/runs/${state.device}/${run.id}`, {
      ca: fx.admin.certPem,
      headers: { cookie },
    });
    assert.match(view.body, /<pre>\n<a id="L1" href="#L1">1<\/a> {2}t=1 operator=\[redacted\]\n<\/pre>/);
    assert.doesNotMatch(view.body, /alice/);
    const revoke = await httpsRequest(`${admin}/devices/${state.device}/revoke`, {
      ca: fx.admin.certPem,
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }).toString(),
    });
    assert.equal(revoke.status, 303);
    await assert.rejects(
      uploadRun(state, { bytes: Buffer.from('again'), contentType: 'text/plain', privacy: 'full' }, { lookup }),
      (err: unknown) => err instanceof DeviceError && err.status === 401 && /revoked/.test(err.message),
    );
  });

  test('discovery not answered: the device proceeds with the link’s server name', async () => {
    // A link whose public name is the control name: its /v1/discover answers 404 there.
    const link = (await mintLink()).replace(`server=admin.test:${port}`, `server=control.test:${port}`);
    const logs: string[] = [];
    const state = await enroll(link, undefined, { discoveryCa: fx.control.certPem, lookup, log: (l) => logs.push(l) });
    assert.equal(state.controlUrl, control);
    assert.match(logs.join('\n'), /discovery unavailable/);
  });

  test('a link that names control= makes no discovery request', async () => {
    const silent = createTcpServer((socket) => socket.destroy());
    let connections = 0;
    silent.on('connection', () => connections++);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const silentPort = (silent.address() as AddressInfo).port;
    const link =
      (await mintLink()).replace(`server=admin.test:${port}`, `server=silent.test:${silentPort}`) +
      `&control=${encodeURIComponent(control)}`;
    try {
      const state = await enroll(link, undefined, { lookup });
      assert.equal(state.controlUrl, control);
      assert.equal(connections, 0);
    } finally {
      silent.close();
    }
  });

  test('a discovery answer pointing at a host with another certificate fails with a pin mismatch, and nothing is sent there', async () => {
    const evil = generateSelfSignedCertificate({
      commonName: 'evil.test',
      dnsNames: ['evil.test'],
      notBefore: new Date(Date.now() - 60_000),
      days: 1,
    });
    const paths: string[] = [];
    const impostor = createHttpsServer({ cert: evil.certPem, key: evil.keyPem }, (req, res) => {
      paths.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ control_url: `https://evil.test:${(impostor.address() as AddressInfo).port}`, name: 'evil' }),
      );
    });
    impostor.listen(0, '127.0.0.1');
    await once(impostor, 'listening');
    const evilPort = (impostor.address() as AddressInfo).port;
    const link = (await mintLink()).replace(`server=admin.test:${port}`, `server=evil.test:${evilPort}`);
    try {
      await assert.rejects(
        enroll(link, undefined, { discoveryCa: evil.certPem, lookup }),
        (err: unknown) => err instanceof PinMismatchError && /pin mismatch/.test((err as Error).message),
      );
      assert.deepEqual(paths, ['/v1/discover'], 'only discovery reached the impostor; no enrollment was sent');
    } finally {
      impostor.close();
    }
  });

  /**
   * A front with the control certificate (so the pin holds) on its own port: `answer` decides each
   * request; `forward()` passes it to the real server and gives back the server's answer.
   */
  async function relay(
    answer: (
      req: IncomingMessage,
      res: ServerResponse,
      forward: () => Promise<{ status: number; body: string }>,
    ) => Promise<void> | void,
  ) {
    const server = createHttpsServer({ cert: fx.control.certPem, key: fx.control.keyPem }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const headers = Object.fromEntries(
          ['authorization', 'x-privacy-level', 'content-type'].map((h) => [h, String(req.headers[h] ?? '')]),
        );
        const forward = () =>
          httpsRequest(`${control}${req.url}`, { ca: fx.control.certPem, method: req.method ?? 'PUT', headers, body });
        void answer(req, res, forward);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      controlUrl: `https://control.test:${(server.address() as AddressInfo).port}`,
      close: () => server.close(),
    };
  }

  test('an upload retried after a dropped connection is stored once', async () => {
    const state = await enroll(await mintLink(), undefined, { discoveryCa: fx.admin.certPem, lookup });
    // The first time, the front drops the connection once the server has answered.
    let dropped = false;
    const front = await relay(async (req, res, forward) => {
      const answer = await forward();
      if (!dropped) {
        dropped = true;
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status).end(answer.body);
    });
    const logs: string[] = [];
    const result = await uploadRun(
      { ...state, controlUrl: front.controlUrl },
      { bytes: Buffer.from('once only'), contentType: 'text/plain', privacy: 'full', id: 'retry-1' },
      { lookup, sleep: async () => undefined, log: (l) => logs.push(l) },
    ).finally(front.close);
    assert.ok(dropped, 'the relay dropped a connection');
    assert.match(logs.join('\n'), /attempt 1 failed/);
    assert.equal(result.status, 200, 'the retry found the run already stored');
    const { cookie } = await signIn();
    const runs = await httpsRequest(`${admin}/runs`, { ca: fx.admin.certPem, headers: { cookie } });
    assert.equal(runs.body.match(/>retry-1</g)?.length, 1);
  });

  test('a busy server’s 503 with Retry-After is waited out (capped at 60 s), then the upload goes through', async () => {
    const state = await enroll(await mintLink(), undefined, { discoveryCa: fx.admin.certPem, lookup });
    // The front is busy twice (Retry-After 7, then 3600), then passes the upload on.
    let busy = 2;
    const front = await relay(async (_req, res, forward) => {
      if (busy > 0) {
        res.writeHead(503, { 'retry-after': busy-- === 2 ? '7' : '3600' }).end('busy');
        return;
      }
      const answer = await forward();
      res.writeHead(answer.status).end(answer.body);
    });
    const slept: number[] = [];
    const result = await uploadRun(
      { ...state, controlUrl: front.controlUrl },
      { bytes: Buffer.from('after a wait'), contentType: 'text/plain', privacy: 'full', id: 'waited-1' },
      { lookup, sleep: async (ms) => void slept.push(ms) },
    ).finally(front.close);
    assert.equal(result.status, 201);
    assert.deepEqual(slept, [7_000, 60_000], 'Retry-After over the backoff, at most 60 s');
  });
});
