// What never becomes a request (a path or Host the adapter cannot read, HTTP/1.1 without Host, bytes
// Node's parser refuses) is still answered plainly with the headers of every answer.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { drain } from '../../src/server/drain.ts';
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
