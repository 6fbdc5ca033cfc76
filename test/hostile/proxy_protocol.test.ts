// The PROXY protocol from the attacker's side (docs/contract.md section 18), over raw sockets
// against a real server: the load balancer is 127.0.0.9 (PADDOCK_PROXY_PROTOCOL_FROM), anyone else
// another loopback address. A trusted connection must open with a header, an untrusted one must
// not; a malformed, oversized, truncated or slow header closes the connection without a byte of
// answer, and the address a good header names is the client everywhere (here: the log and the
// throttle).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { PROXY_HEADER_TIMEOUT_MS } from '../../src/server/accept_proxy_protocol.ts';
import { type Live, live } from '../support/live.ts';
import { tlv, V2_LOCAL, v1Tcp, v2, v2Tcp4 } from '../support/proxy_header.ts';
import { freePort, tlsFixture } from '../support/tls_fixture.ts';

const BALANCER = '127.0.0.9';
const STRANGER = '127.0.0.3';
const text = (s: string) => Buffer.from(s, 'latin1');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sent {
  /** Everything the server wrote. */
  out: string;
  /** The server closed the connection (rather than the test giving up on it). */
  closed: boolean;
  /** From the first byte written to the close. */
  ms: number;
}

/** Writes `parts` from `from` (a number is a pause, in ms), then waits up to `waitMs` for the server to close. */
async function send(
  port: number,
  parts: Array<Buffer | string | number>,
  opts: { from: string; waitMs?: number; end?: boolean },
): Promise<Sent> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: opts.from });
  await once(socket, 'connect');
  let out = '';
  let closedAt: number | undefined;
  socket.setEncoding('latin1').on('data', (d: string) => (out += d));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // The server ending its side or resetting the connection, whichever is seen first.
  const seen = () => (closedAt ??= performance.now());
  socket.once('end', seen);
  socket.once('close', seen);
  const started = performance.now();
  for (const part of parts) {
    if (closedAt !== undefined) break;
    if (typeof part === 'number') await sleep(part);
    else socket.write(part);
  }
  if (opts.end) socket.end();
  await Promise.race([closed, sleep(Math.max(0, started + (opts.waitMs ?? 3_000) - performance.now()))]);
  socket.destroy();
  return { out, closed: closedAt !== undefined, ms: (closedAt ?? performance.now()) - started };
}

/** A request that closes its connection after the answer. */
function request(port: number, method: string, path: string, body = '', headers: Record<string, string> = {}): string {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ...(method === 'GET' ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const wrongSignIn = (port: number) =>
  request(port, 'POST', '/login', 'username=admin&password=not+the+password', {
    'Content-Type': 'application/x-www-form-urlencoded',
  });

/** The status of the first answer in a raw exchange, 0 for none. */
const status = (raw: string) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(raw)?.[1] ?? 0);

/** Closed by the server without a byte of answer. */
function refused(sent: Sent, what: string): void {
  assert.ok(sent.closed, `${what}: still open after ${Math.round(sent.ms)} ms`);
  assert.equal(sent.out, '', `${what}: answered`);
}

// Each server sees fewer than ten refused sign-ins: past ten, the account's own throttle spaces
// attempts from every new address, which would slow the tests (not change their outcome).
describe('PROXY protocol on the plain port: the client it names', () => {
  let l: Live;
  before(async () => {
    l = await live({ PADDOCK_PROXY_PROTOCOL_FROM: `${BALANCER}, 10.0.0.0/8` });
  });
  after(() => l?.close());

  /** The client the last refused sign-in was logged with. */
  const lastFailedClient = () => l.logs.filter((r) => r.event === 'login.local.failed').at(-1)?.client;

  test('the address a header names is the client: logged, and throttled apart from every other client', async () => {
    for (let i = 0; i < 3; i++) {
      const sent = await send(l.port, [v2Tcp4('203.0.113.7', 40_000 + i), wrongSignIn(l.port)], { from: BALANCER });
      assert.equal(status(sent.out), 401);
      assert.equal(lastFailedClient(), '203.0.113.7');
    }
    // Three failures of 203.0.113.7: its next attempt waits a second; another client behind the same
    // balancer, and a client connecting directly, do not wait for it.
    const timed = async (parts: Array<Buffer | string>, from: string) => {
      const started = performance.now();
      const sent = await send(l.port, parts, { from, waitMs: 8_000 });
      assert.equal(status(sent.out), 401);
      return performance.now() - started;
    };
    const [throttled, other, direct] = await Promise.all([
      timed([v2Tcp4('203.0.113.7', 40_100), wrongSignIn(l.port)], BALANCER),
      timed([v1Tcp('198.51.100.4', 40_101), wrongSignIn(l.port)], BALANCER),
      timed([wrongSignIn(l.port)], STRANGER),
    ]);
    assert.ok(throttled >= 950, `the throttled client waited ${throttled} ms`);
    assert.ok(other < 900 && direct < 900, `the others waited ${other} and ${direct} ms`);
  });

  test("after the header, a device's TLS handshake on the plain port: enrolled, with the header's client", async () => {
    const { cookie, csrf } = await l.signIn();
    const minted = await fetch(`${l.url}/enroll-tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }),
    });
    const token = /token=([A-Za-z0-9_-]{43})/.exec(await minted.text())?.[1] ?? '';
    const raw = connect({ port: l.port, host: '127.0.0.1', localAddress: BALANCER });
    await once(raw, 'connect');
    raw.write(v2Tcp4('203.0.113.20', 51_000));
    const tls = tlsConnect({ socket: raw, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    await once(tls, 'secureConnect');
    let out = '';
    tls.setEncoding('latin1').on('data', (d: string) => (out += d));
    tls.end(request(l.port, 'POST', '/v1/enroll', JSON.stringify({ token }), { 'Content-Type': 'application/json' }));
    await once(tls, 'close');
    assert.equal(status(out), 201, out);
    const enrolled = l.logs.filter((r) => r.event === 'device.enrolled').at(-1);
    assert.equal(enrolled?.client, '203.0.113.20');
  });
});

describe('PROXY protocol on the plain port: headers, good and bad', () => {
  let l: Live;
  before(async () => {
    l = await live({ PADDOCK_PROXY_PROTOCOL_FROM: `${BALANCER}, 10.0.0.0/8` });
  });
  after(() => l?.close());

  /** The client the last refused sign-in was logged with. */
  const lastFailedClient = () => l.logs.filter((r) => r.event === 'login.local.failed').at(-1)?.client;

  test('v1 TCP4 and TCP6, v2 TCP6 and IPv4-mapped name the client; LOCAL, UNKNOWN and UNSPEC leave it the balancer', async () => {
    const mapped = v2(0x21, 0x21, [
      ...Array(10).fill(0),
      0xff,
      0xff,
      192,
      0,
      2,
      44,
      ...Array(16).fill(0),
      0,
      80,
      1,
      187,
    ]);
    const v6 = v2(0x21, 0x21, [
      0x20,
      0x01,
      0x0d,
      0xb8,
      ...Array(11).fill(0),
      0x09,
      ...Array(16).fill(0),
      0,
      80,
      1,
      187,
    ]);
    const rows: Array<[Buffer, string]> = [
      [v1Tcp('192.0.2.10', 1), '192.0.2.10'],
      [v1Tcp('2001:DB8:0:0:0:0:0:8', 2), '2001:db8::8'],
      [v6, '2001:db8::9'],
      [mapped, '192.0.2.44'],
      [V2_LOCAL, BALANCER],
      [text('PROXY UNKNOWN\r\n'), BALANCER],
      [v2(0x21, 0x00, []), BALANCER],
    ];
    for (const [header, client] of rows) {
      const sent = await send(l.port, [header, wrongSignIn(l.port)], { from: BALANCER, waitMs: 8_000 });
      assert.equal(status(sent.out), 401, client);
      assert.equal(lastFailedClient(), client);
    }
    // A health check as HAProxy sends it: LOCAL, then the request.
    const health = await send(l.port, [V2_LOCAL, request(l.port, 'GET', '/healthz')], { from: BALANCER });
    assert.equal(status(health.out), 200);
  });

  test('a connection from a trusted address without a header is closed unanswered: HTTP, TLS, or nothing at once', async () => {
    const hello = Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00]);
    const rows: Array<[string, Array<Buffer | string | number>]> = [
      ['plain HTTP', [request(l.port, 'GET', '/healthz')]],
      ['a TLS handshake', [hello]],
      ['CRLF CRLF, then HTTP', ['\r\n\r\n', request(l.port, 'GET', '/healthz')]],
      ['a lower-case signature', ['proxy TCP4 192.0.2.1 192.0.2.2 1 2\r\n']],
    ];
    for (const [what, parts] of rows) {
      const sent = await send(l.port, parts, { from: BALANCER });
      refused(sent, what);
      assert.ok(sent.ms < 1_000, `${what}: closed after ${sent.ms} ms`);
    }
    // Any address of a trusted range counts.
    refused(await send(l.port, [request(l.port, 'GET', '/healthz')], { from: '127.0.0.9' }), 'the range');
  });

  test('a header from anyone else is closed unread; their requests are served, under their own address', async () => {
    const rows: Array<[string, Array<Buffer | string | number>]> = [
      ['v1', [v1Tcp('192.0.2.66', 1), wrongSignIn(l.port)]],
      ['v2', [v2Tcp4('192.0.2.66', 1), wrongSignIn(l.port)]],
      ['v2 LOCAL', [V2_LOCAL, request(l.port, 'GET', '/healthz')]],
      ['v1 in two pieces', ['PRO', 50, 'XY UNKNOWN\r\n', request(l.port, 'GET', '/healthz')]],
      ['v2 in two pieces', [v2Tcp4('192.0.2.66', 1).subarray(0, 3), 50, v2Tcp4('192.0.2.66', 1).subarray(3)]],
    ];
    for (const [what, parts] of rows) refused(await send(l.port, parts, { from: STRANGER }), what);
    // A method starting like the signature is no header.
    const post = await send(l.port, ['P', 50, request(l.port, 'POST', '/logout').slice(1)], { from: STRANGER });
    assert.ok(status(post.out) >= 200, post.out);
    const plain = await send(l.port, [wrongSignIn(l.port)], { from: '127.0.0.4' });
    assert.equal(status(plain.out), 401);
    assert.equal(lastFailedClient(), '127.0.0.4');
  });

  test('malformed headers are closed at once, unanswered', async () => {
    const ipv4 = v2Tcp4('192.0.2.1', 1).subarray(16);
    const rows: Array<[string, Buffer | string]> = [
      ['v1 ended by LF alone', 'PROXY TCP4 192.0.2.1 192.0.2.2 1 2\n'],
      ['v1 with a CR inside', 'PROXY TCP4 192.0.2.1\r192.0.2.2 1 2\r\n'],
      ['v1 with a port over 65535', 'PROXY TCP4 192.0.2.1 192.0.2.2 65536 2\r\n'],
      ['v1 with a leading zero', 'PROXY TCP4 192.0.2.01 192.0.2.2 1 2\r\n'],
      ['v1 TCP4 with IPv6', 'PROXY TCP4 ::1 ::2 1 2\r\n'],
      ['v1 with a NUL', 'PROXY TCP4 192.0.2.1 192.0.2.2\x00 1 2\r\n'],
      ['v1 without CRLF in 107 bytes', `PROXY UNKNOWN ${'x'.repeat(120)}`],
      ['v1 of another protocol', 'PROXY UDP4 192.0.2.1 192.0.2.2 1 2\r\n'],
      ['v2 of version 1', v2(0x11, 0x11, ipv4)],
      ['v2 of an unassigned command', v2(0x2f, 0x11, ipv4)],
      ['v2 of an unknown family', v2(0x21, 0x51, ipv4)],
      ['v2 shorter than its addresses', v2(0x21, 0x21, ipv4)],
      ['v2 with a TLV running past the header', v2(0x21, 0x11, [...ipv4, ...tlv(0x02, 40).subarray(0, 20)])],
      ['v2 with a TLV cut to two bytes', v2(0x21, 0x11, [...ipv4, 0x01, 0x00])],
    ];
    for (const [what, header] of rows) {
      const sent = await send(l.port, [header, request(l.port, 'GET', '/healthz')], { from: BALANCER });
      refused(sent, what);
      assert.ok(sent.ms < 1_000, `${what}: closed after ${sent.ms} ms`);
    }
  });

  test('oversized: a header announcing 64 KiB, or TLVs past 2 KiB, is closed from its first bytes', async () => {
    const huge = v2Tcp4('192.0.2.1', 1);
    huge.writeUInt16BE(0xffff, 14);
    const announced = await send(l.port, [huge.subarray(0, 16)], { from: BALANCER });
    refused(announced, 'a 64 KiB header');
    assert.ok(announced.ms < 1_000);
    const tlvs = v2(0x21, 0x11, [...v2Tcp4('192.0.2.1', 1).subarray(16), ...tlv(0xe0, 2_100)]);
    refused(await send(l.port, [tlvs], { from: BALANCER }), 'TLVs past 2 KiB');
    // The same TLVs within the bound are skipped, and the request after them answered.
    const within = v2(0x21, 0x11, [...v2Tcp4('192.0.2.1', 1).subarray(16), ...tlv(0xe0, 1_000), ...tlv(0x04, 0)]);
    assert.equal(
      status((await send(l.port, [within, request(l.port, 'GET', '/healthz')], { from: BALANCER })).out),
      200,
    );
  });

  test('a truncated v2 block is closed when the balancer stops sending', async () => {
    const header = v2Tcp4('192.0.2.1', 1);
    for (const cut of [8, 15, 20, 27]) {
      const sent = await send(l.port, [header.subarray(0, cut)], { from: BALANCER, end: true });
      refused(sent, `cut at ${cut}`);
      assert.ok(sent.ms < 1_000);
    }
  });

  test('slow headers: one fragmented but whole in time is read; a stalled one is closed when its time is up', async () => {
    const line = v1Tcp('192.0.2.77', 9);
    const fragmented = [...Array(line.length).keys()].flatMap((i) => [line.subarray(i, i + 1), 20]);
    const slowButWhole = send(l.port, [...fragmented, request(l.port, 'GET', '/healthz')], { from: BALANCER });
    const limit = PROXY_HEADER_TIMEOUT_MS;
    const stalled = await Promise.all([
      send(l.port, [], { from: BALANCER, waitMs: limit + 3_000 }),
      send(l.port, [line.subarray(0, 20)], { from: BALANCER, waitMs: limit + 3_000 }),
      send(l.port, [v2Tcp4('192.0.2.1', 1).subarray(0, 20)], { from: BALANCER, waitMs: limit + 3_000 }),
      // A byte every 400 ms: never whole before the limit.
      send(
        l.port,
        [...line].flatMap((byte) => [Buffer.from([byte]), 400]),
        { from: BALANCER, waitMs: limit + 3_000 },
      ),
      // Not trusted, and too few bytes to tell a signature: the same limit.
      send(l.port, ['PROX'], { from: STRANGER, waitMs: limit + 3_000 }),
    ]);
    for (const [i, sent] of stalled.entries()) {
      refused(sent, `stalled ${i}`);
      assert.ok(sent.ms >= limit - 200 && sent.ms < limit + 2_000, `stalled ${i}: closed after ${sent.ms} ms`);
    }
    assert.equal(status((await slowButWhole).out), 200);
  });
});

describe('PROXY protocol at the connection cap, and on a stop', () => {
  test('connections waiting for a header are shed for newcomers, and closed at once by a stop', async () => {
    const l = await live({ PADDOCK_PROXY_PROTOCOL_FROM: BALANCER }, { maxConnections: 64 });
    const silent: Socket[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        const socket = connect({ port: l.port, host: '127.0.0.1', localAddress: BALANCER });
        socket.on('error', () => undefined);
        silent.push(socket);
        await once(socket, 'connect');
      }
      const sent = await send(l.port, [V2_LOCAL, request(l.port, 'GET', '/healthz')], { from: BALANCER });
      assert.equal(status(sent.out), 200);
      await sleep(100);
      const open = silent.filter((s) => !s.destroyed && s.readyState === 'open').length;
      assert.ok(open > 0 && open <= 64, `${open} silent connections still open`);
    } finally {
      const started = performance.now();
      await l.close();
      assert.ok(performance.now() - started < 3_000, 'the stop waited for the silent connections');
      silent.forEach((s) => s.destroy());
    }
  });
});

describe('PROXY protocol with TLS configured (the header comes before the handshake)', () => {
  test('the header is read first; then SNI picks the certificate; no header: closed', async () => {
    const fx = await tlsFixture();
    const port = await freePort();
    const l = await live({
      PADDOCK_LISTEN: `127.0.0.1:${port}`,
      PADDOCK_BASE_URL: `https://admin.test:${port}`,
      PADDOCK_CONTROL_HOST: 'control.test',
      PADDOCK_TLS_CERT: fx.admin.certFile,
      PADDOCK_TLS_KEY: fx.admin.keyFile,
      PADDOCK_PROXY_PROTOCOL_FROM: BALANCER,
    });
    try {
      for (const servername of ['admin.test', 'control.test']) {
        const raw = connect({ port, host: '127.0.0.1', localAddress: BALANCER });
        await once(raw, 'connect');
        raw.write(v2Tcp4('203.0.113.30', 1));
        const tls = tlsConnect({ socket: raw, servername, ca: fx.admin.certPem, rejectUnauthorized: false });
        await once(tls, 'secureConnect');
        assert.equal(tls.getPeerCertificate().subject?.CN, servername);
        let out = '';
        tls.setEncoding('latin1').on('data', (d: string) => (out += d));
        // The console's health check, and a device's ask for requests without a credential.
        const [path, expected] = servername === 'admin.test' ? ['/healthz', 200] : ['/v1/requests', 401];
        tls.end(`GET ${path} HTTP/1.1\r\nHost: ${servername}:${port}\r\nConnection: close\r\n\r\n`);
        await once(tls, 'close');
        assert.equal(status(out), expected, out);
      }
      const raw = connect({ port, host: '127.0.0.1', localAddress: BALANCER });
      await once(raw, 'connect');
      raw.on('error', () => undefined);
      const tls = tlsConnect({ socket: raw, servername: 'admin.test', rejectUnauthorized: false });
      // events.once rejects on the socket's error: the handshake's end without an answer.
      const failed = await once(tls, 'secureConnect').then(
        () => 'connected',
        () => 'refused',
      );
      assert.equal(failed, 'refused');
      tls.destroy();
    } finally {
      await l.close();
    }
  });
});
