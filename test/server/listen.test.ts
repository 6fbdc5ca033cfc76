// What never becomes a request (a path or Host the adapter cannot read, HTTP/1.1 without Host, bytes
// Node's parser refuses) is still answered plainly with the headers of every answer.
import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { listen } from '../../src/server/listen.ts';

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
