// What never becomes a request (a path or Host the adapter cannot read, HTTP/1.1 without Host, bytes
// Node's parser refuses) is still answered plainly with the headers of every answer.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { drain } from '../../src/server/drain.ts';
import { CONNECTION_HEAP_COST, connectionCap, connectionCeiling, openFileLimit } from '../../src/server/connections.ts';
import { listen } from '../../src/server/listen.ts';
import { certificatePin, generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';

/** Sends raw bytes and returns everything the server wrote before it closed the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setEncoding('latin1').on('data', (d: string) => {
      out += d;
      // An answer with a body is complete once its Content-Length is in.
      const length = /content-length: (\d+)/i.exec(out)?.[1];
      const head = out.indexOf('\r\n\r\n');
      if (length !== undefined && head !== -1 && out.length >= head + 4 + Number(length)) socket.end();
    });
    socket.on('end', () => resolve(out)).on('error', reject);
  });
}

test('unreadable requests get a plain 400 with the security headers, and never reach the handler', async () => {
  let reached = 0;
  const server = await listen(
    () => {
      reached++;
      return new Response('handled');
    },
    { host: '127.0.0.1', port: 0 },
  );
  const port = (server.address() as AddressInfo).port;
  try {
    for (const [what, bytes] of [
      ['a backslash in the path', 'GET /a\\b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['a Host that is not a host', 'GET / HTTP/1.1\r\nHost: [zz\r\n\r\n'],
      ['HTTP/1.1 without Host', 'GET / HTTP/1.1\r\n\r\n'],
      ['bytes that are not HTTP', 'NOT HTTP AT ALL\r\n\r\n'],
    ] as const) {
      const raw = await exchange(port, bytes);
      assert.match(raw, /^HTTP\/1\.1 400 /, what);
      assert.match(raw, /\r\ncontent-security-policy: default-src 'none'\r\n/i, what);
      assert.match(raw, /\r\nx-content-type-options: nosniff\r\n/i, what);
      assert.match(raw, /\r\nx-frame-options: DENY\r\n/i, what);
      assert.match(raw, /\r\nreferrer-policy: no-referrer\r\n/i, what);
      assert.match(raw, /\r\ncontent-type: text\/plain/i, what);
      assert.match(raw, /\r\n\r\nbad request\n$/, what);
    }
    assert.equal(reached, 0);
    // HTTP/1.0 may omit Host: it is addressed to the listen address.
    assert.match(await exchange(port, 'GET / HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 [\s\S]*\r\n\r\nhandled$/);
    assert.equal(reached, 1);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('the plain port serves TLS with the control certificate to a connection that opens with a handshake', async () => {
  const control = generateSelfSignedCertificate({
    commonName: '127.0.0.1',
    dnsNames: [],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(Date.now() - 60_000),
    days: 30,
  });
  const server = await listen(
    async (req) => new Response(`${new URL(req.url).protocol} ${req.method} ${(await req.text()).length}`),
    { host: '127.0.0.1', port: 0, control: () => control },
  );
  const port = (server.address() as AddressInfo).port;
  try {
    // TLS: the control certificate, then HTTP inside, keep-alive for a second request.
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    await once(socket, 'secureConnect');
    assert.equal(certificatePin(socket.getPeerX509Certificate()?.toString() ?? ''), certificatePin(control.certPem));
    const body = 'x'.repeat(200_000);
    let out = '';
    socket.setEncoding('latin1').on('data', (d: string) => (out += d));
    socket.write(`PUT /a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    socket.write('GET /b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await once(socket, 'end');
    assert.match(out, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\nhttps: PUT 200000HTTP\/1\.1 200 [\s\S]*\r\n\r\nhttps: GET 0$/);

    // Plain HTTP, its first byte alone in the first packet, and a large body: as before.
    const plain = connect(port, '127.0.0.1');
    await once(plain, 'connect');
    let answer = '';
    plain.setEncoding('latin1').on('data', (d: string) => (answer += d));
    plain.write('P');
    await new Promise((r) => setTimeout(r, 50));
    plain.write(
      `UT /c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await once(plain, 'end');
    assert.match(answer, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\nhttp: PUT 200000$/);

    // A handshake that fails is dropped without an answer, and the server goes on.
    const refused = tlsConnect({
      host: '127.0.0.1',
      port,
      rejectUnauthorized: false,
      ciphers: 'AES128-SHA',
      maxVersion: 'TLSv1.2',
    });
    await assert.rejects(once(refused, 'secureConnect'));
    assert.equal((await fetch(`http://127.0.0.1:${port}/d`)).status, 200);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A raw connection: what it has received so far, and whether the server closed it. */
interface Held {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
  isClosed(): boolean;
}

function open(port: number): Promise<Held> {
  return new Promise((resolve, reject) => {
    let out = '';
    let closed = false;
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('latin1').on('data', (d: string) => (out += d));
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    void ended.then(() => (closed = true));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => out, closed: ended, isClosed: () => closed }));
    socket.once('error', reject);
  });
}

/** Until the server has accepted `count` connections, so the order of arrival is the server's too. */
async function accepted(server: Server, count: number): Promise<void> {
  for (;;) {
    const n = await new Promise<number>((resolve, reject) =>
      server.getConnections((err, c) => (err ? reject(err) : resolve(c))),
    );
    if (n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Sends a whole GET on `raw` and waits for its answer (keep-alive: the connection stays open). */
async function get(raw: Held, path = '/'): Promise<string> {
  const before = raw.received().length;
  raw.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  for (;;) {
    const answer = raw.received().slice(before);
    if (/\r\n\r\nok$/.test(answer)) return answer;
    if (raw.isClosed()) throw new Error(`closed before an answer: ${JSON.stringify(answer)}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

test('at the connection cap a new connection is served: the one waiting longest for a head is closed for it, a request in progress is kept', async () => {
  const server = await listen(
    async (req) => new Response(req.method === 'POST' ? `posted ${await req.text()}` : 'ok'),
    { host: '127.0.0.1', port: 0, maxConnections: 4 },
  );
  const port = (server.address() as AddressInfo).port;
  const all: Held[] = [];
  const accept = async (count: number) => {
    const r = await open(port);
    all.push(r);
    await accepted(server, count);
    return r;
  };
  try {
    const idle = await accept(1);
    await get(idle);
    const slowHead = await accept(2);
    slowHead.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const posting = await accept(3);
    posting.socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\nab');
    const silent = await accept(4);

    // Each newcomer past the cap is answered; the oldest waiting for a head goes, in order.
    const first = await open(port);
    all.push(first);
    await get(first);
    await idle.closed;
    assert.deepEqual(
      [slowHead, posting, silent].map((r) => r.isClosed()),
      [false, false, false],
    );
    const second = await open(port);
    all.push(second);
    await get(second);
    await slowHead.closed;
    const third = await open(port);
    all.push(third);
    await get(third);
    await silent.closed;
    // The request in progress is still there, and its answer comes once its body is in.
    assert.equal(posting.isClosed(), false);
    posting.socket.write('cd');
    for (let i = 0; i < 500 && !posting.received().endsWith('posted abcd'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    assert.match(posting.received(), /^HTTP\/1\.1 200 [\s\S]*\r\n\r\nposted abcd$/);
  } finally {
    for (const r of all) r.socket.destroy();
    // A request whose body never came waits for it on the server's side (this handler sets no
    // minimum rate): closed here.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

// The 60 s a request's headers may take, and the drain's own deadline, are past the test's limit.
test(
  'a stop is not held by a connection that has sent nothing yet, or is still in its handshake',
  { timeout: 10_000 },
  async () => {
    const control = generateSelfSignedCertificate({
      commonName: 'localhost',
      dnsNames: ['localhost'],
      notBefore: new Date(Date.now() - 60_000),
      days: 30,
    });
    const server = await listen(() => new Response('ok'), { host: '127.0.0.1', port: 0, control: () => control });
    const port = (server.address() as AddressInfo).port;
    const silent = connect(port, '127.0.0.1');
    await once(silent, 'connect');
    // A ClientHello's record header, and nothing more.
    const halfway = connect(port, '127.0.0.1');
    await once(halfway, 'connect');
    halfway.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x80]));
    await new Promise((r) => setTimeout(r, 50));
    await drain(server, 60_000);
    await Promise.all([once(silent, 'close'), once(halfway, 'close')]);
  },
);

test('at the cap with every connection inside a request, the oldest request is closed for the newcomer', async () => {
  const server = await listen(
    async (req) => new Response(req.method === 'POST' ? `posted ${await req.text()}` : 'ok'),
    { host: '127.0.0.1', port: 0, maxConnections: 2 },
  );
  const port = (server.address() as AddressInfo).port;
  const all: Held[] = [];
  try {
    for (const n of [1, 2]) {
      const r = await open(port);
      all.push(r);
      r.socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\nab');
      await accepted(server, n);
    }
    // The server has read both heads once the second is counted in a request: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const newcomer = await open(port);
    all.push(newcomer);
    assert.match(await get(newcomer), /^HTTP\/1\.1 200 /);
    await all[0]?.closed;
    assert.equal(all[1]?.isClosed(), false);
  } finally {
    for (const r of all) r.socket.destroy();
    // A request whose body never came waits for it on the server's side (this handler sets no
    // minimum rate): closed here.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("the connection cap follows the open-file limit, less a reserve, within a floor and the heap's ceiling", () => {
  const heap = 2 ** 32;
  assert.equal(connectionCap(10_000, heap), 10_000 - 512);
  assert.equal(connectionCap(1024, heap), 512);
  assert.equal(connectionCap(100, heap), 64);
  assert.equal(connectionCap(1_048_576, heap), connectionCeiling(heap));
  // This process: Node raised its soft limit to the hard one as it started.
  assert.ok(openFileLimit() >= 1024);
});

// docs/contract.md section 23: the ceiling follows the heap's limit over the costliest connection.
test("the connection ceiling follows the heap: npm start's holds 10,000 held requests, 64 MiB keeps most of its heap", () => {
  const MiB = 2 ** 20;
  // --max-old-space-size=256 and 64 with an 8 MiB semi-space: limits of 280 and 88 MiB.
  assert.ok(connectionCeiling(280 * MiB) >= 10_000, String(connectionCeiling(280 * MiB)));
  assert.ok(connectionCeiling(88 * MiB) * CONNECTION_HEAP_COST <= 88 * MiB - 64 * MiB);
  assert.ok(connectionCeiling(1024 * MiB) > connectionCeiling(280 * MiB));
  // A heap too small for any share of connections still gets the floor.
  assert.equal(connectionCeiling(16 * MiB), 64);
});
