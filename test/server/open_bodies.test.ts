// docs/contract.md section 23: bodies in flight before any credential is checked are capped per
// client address (server/open_bodies.ts). The rule on fake requests (which routes, which clients),
// then on the wire through listen(): the client over the cap is told 429 with Retry-After before
// its body is read, its connection closed; others, and the same client once a body is whole, go on.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { test } from 'node:test';
import { readBody } from '../../src/http/body.ts';
import { listen } from '../../src/server/listen.ts';
import { OPEN_BODIES_PER_CLIENT, openBodies } from '../../src/server/open_bodies.ts';

/** A request as Node's parser gives it, and its response, with just what the cap reads. */
function fake(
  method: string,
  url: string,
  address: string,
  headers: Record<string, string> = { 'content-length': '9' },
) {
  const req = Object.assign(new EventEmitter(), { method, url, headers, socket: { remoteAddress: address } });
  const res = new EventEmitter();
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse };
}

const scenarios: Array<{
  name: string;
  method: string;
  url: string;
  headers?: Record<string, string>;
  counted: boolean;
}> = [
  { name: 'enrollment', method: 'POST', url: '/v1/enroll', counted: true },
  { name: 'the sign-in form', method: 'POST', url: '/login', counted: true },
  { name: 'sign-out', method: 'POST', url: '/logout', counted: true },
  { name: 'a back-channel logout', method: 'POST', url: '/oidc/backchannel-logout?x=1', counted: true },
  {
    name: 'a chunked enrollment',
    method: 'POST',
    url: '/v1/enroll',
    headers: { 'transfer-encoding': 'chunked' },
    counted: true,
  },
  { name: 'an upload (its credential is checked first)', method: 'PUT', url: '/v1/runs/r1', counted: false },
  { name: 'a console form (a session first)', method: 'POST', url: '/devices/d_1/rename', counted: false },
  { name: 'the API (a token first)', method: 'POST', url: '/api/v1/collections', counted: false },
  {
    name: 'the sign-in form without a body',
    method: 'POST',
    url: '/login',
    headers: { 'content-length': '0' },
    counted: false,
  },
  { name: 'the sign-in page', method: 'GET', url: '/login', headers: {}, counted: false },
];

for (const { name, method, url, headers, counted } of scenarios) {
  test(`open bodies: ${name} ${counted ? 'is' : 'is not'} counted against its client`, () => {
    const cap = openBodies();
    const { req, res } = fake(method, url, '192.0.2.7', headers);
    assert.equal(cap.admit(req, res), true);
    assert.equal(cap.inFlight('192.0.2.7'), counted ? 1 : 0);
    res.emit('close');
    assert.equal(cap.inFlight(), 0);
  });
}

test(`open bodies: ${OPEN_BODIES_PER_CLIENT} at once per IPv4 address or IPv6 /64; the next is refused, another client is not`, () => {
  const cap = openBodies();
  const held = [];
  for (let i = 0; i < OPEN_BODIES_PER_CLIENT; i++) {
    // One subscriber walking the addresses of its /64 is one client.
    const one = fake('POST', '/v1/enroll', `2001:db8:1:2::${(i + 1).toString(16)}`);
    assert.equal(cap.admit(one.req, one.res), true, `body ${i}`);
    held.push(one);
  }
  const over = fake('POST', '/login', '2001:db8:1:2:ffff::9');
  assert.equal(cap.admit(over.req, over.res), false);
  assert.equal(cap.inFlight('2001:db8:1:2::/64'), OPEN_BODIES_PER_CLIENT);
  // The next /64 and an IPv4 client are clients of their own.
  for (const address of ['2001:db8:1:3::1', '198.51.100.1', '::ffff:198.51.100.2']) {
    const other = fake('POST', '/v1/enroll', address);
    assert.equal(cap.admit(other.req, other.res), true, address);
  }
  // A body whole (its request ended) frees its place at once; an answer only counts once.
  const first = held[0] as ReturnType<typeof fake>;
  first.req.emit('end');
  first.res.emit('close');
  assert.equal(cap.inFlight('2001:db8:1:2::/64'), OPEN_BODIES_PER_CLIENT - 1);
  const again = fake('POST', '/login', '2001:db8:1:2::abcd');
  assert.equal(cap.admit(again.req, again.res), true);
});

interface Raw {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
}

function send(port: number, localAddress: string, bytes: string): Promise<Raw> {
  return new Promise((resolve) => {
    let out = '';
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => {
      socket.write(bytes);
      resolve({ socket, received: () => out, closed });
    });
    socket.setEncoding('latin1').on('data', (d: string) => (out += d));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
  });
}

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(condition(), what);
}

test('open bodies on the wire: over the cap, 429 with Retry-After and the connection closed, before a byte of the body is read', async () => {
  const cap = openBodies({ perClient: 2, routes: [{ method: 'POST', path: '/open' }] });
  let read = 0;
  const early: Array<[number, boolean]> = [];
  const server = await listen(
    async (req) => {
      const body = await readBody(req, { limit: 65_536 });
      read++;
      return new Response(`read ${body.byteLength}`);
    },
    { host: '127.0.0.1', port: 0, openBodies: cap, answeredEarly: (status, busy) => early.push([status, busy]) },
  );
  const port = (server.address() as AddressInfo).port;
  const head = (path: string) => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4096\r\n\r\n`;
  const raws: Raw[] = [];
  try {
    // Two stalled bodies from one address take its places.
    for (let i = 0; i < 2; i++) raws.push(await send(port, '127.0.0.2', `${head('/open')}${'a'.repeat(2048)}`));
    await until('both counted', () => cap.inFlight('127.0.0.2') === 2);
    const over = await send(port, '127.0.0.2', `${head('/open')}${'a'.repeat(2048)}`);
    raws.push(over);
    await over.closed;
    assert.match(over.received(), /^HTTP\/1\.1 429 /);
    assert.match(over.received(), /\r\nRetry-After: 1\r\n/i);
    assert.match(over.received(), /\r\nConnection: close\r\n/i);
    assert.match(over.received(), /too many requests with a body in flight from this address/);
    // Counted as what it is (serve.ts labels it open_bodies_busy), not as an unreadable request.
    assert.deepEqual(early, [[429, true]]);
    // Another address, and another route from the same address, are not held back.
    const other = await send(port, '127.0.0.3', `${head('/open')}${'b'.repeat(4096)}`);
    const elsewhere = await send(port, '127.0.0.2', `${head('/elsewhere')}${'c'.repeat(4096)}`);
    raws.push(other, elsewhere);
    await until('the other address answered', () => other.received().includes('read 4096'));
    await until('the other route answered', () => elsewhere.received().includes('read 4096'));
    // A stalled body that comes whole frees its place: the same address is admitted again.
    (raws[0] as Raw).socket.write('a'.repeat(2048));
    await until('the first body answered', () => (raws[0] as Raw).received().includes('read 4096'));
    await until('its place freed', () => cap.inFlight('127.0.0.2') === 1);
    const next = await send(port, '127.0.0.2', `${head('/open')}${'d'.repeat(4096)}`);
    raws.push(next);
    await until('the next body answered', () => next.received().includes('read 4096'));
    assert.equal(read, 4);
  } finally {
    for (const r of raws) r.socket.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
