// The watch's parts on their own (docs/contract.md section 15): the wait after an error, the level
// it sends at, the command it runs, and the loop against a scripted control server with the
// control certificate (so the pin holds), with every wait recorded instead of slept.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { retryDelay } from '../../src/device_client/backoff.ts';
import { collect } from '../../src/device_client/collect.ts';
import { declineStderr } from '../../src/device_client/stderr_tail.ts';
import { DECLINE_STDERR_MAX, isDeclineStderr } from '../../src/domain/collections.ts';
import type { CollectionRequest } from '../../src/device_client/requests.ts';
import type { DeviceState } from '../../src/device_client/state.ts';
import { levelFor, watch } from '../../src/device_client/watch.ts';
import { localFacts } from '../../src/device_client/facts.ts';
import { certificatePin } from '../../src/tls/self_signed.ts';
import { lookup, type TlsFixture, tlsFixture } from '../support/tls_fixture.ts';

const request: CollectionRequest = {
  id: 'r_7',
  privacy: 'redacted',
  reason: 'disk check',
  createdAt: '2025-01-01T00:00:00.000Z',
  expiresAt: '2025-01-02T00:00:00.000Z',
};

describe('the wait after an error', () => {
  const cases: Array<[string, number, number | undefined, number, number]> = [
    // name, failures in a row, Retry-After, random, expected ms
    ['the first wait is 1 s at most', 1, undefined, 1, 1_000],
    ['and at least half of it', 1, undefined, 0, 500],
    ['it doubles', 4, undefined, 1, 8_000],
    ['up to 60 s', 12, undefined, 1, 60_000],
    ['with jitter there too', 12, undefined, 0, 30_000],
    ['a longer Retry-After is honoured', 1, 7, 0.5, 7_000],
    ['a shorter one is not a reason to come back sooner', 6, 2, 1, 32_000],
    ['Retry-After is at most 60 s', 1, 3_600, 1, 60_000],
  ];
  for (const [name, failures, retryAfter, random, ms] of cases)
    test(name, () =>
      assert.equal(
        retryDelay(failures, retryAfter, () => random),
        ms,
      ),
    );
});

test('the level sent is the one asked, or the device’s ceiling when the ask is above it', () => {
  assert.equal(levelFor('redacted', 'full'), 'redacted');
  assert.equal(levelFor('minimal', 'redacted'), 'minimal');
  assert.equal(levelFor('full', 'redacted'), 'redacted');
  assert.equal(levelFor('redacted', 'minimal'), 'minimal');
});

describe('the collect command', () => {
  test('sees the request in its environment; its standard output is the run', async () => {
    const out = await collect(
      'printf "%s|%s|%s" "$PADDOCK_REQUEST_ID" "$PADDOCK_REQUEST_PRIVACY" "$PADDOCK_REQUEST_REASON"',
      request,
    );
    assert.deepEqual(out, { kind: 'run', bytes: Buffer.from('r_7|redacted|disk check') });
  });

  test('a failure is the reason to decline: its exit status, or the signal that killed it', async () => {
    assert.deepEqual(await collect('echo partial; exit 3', request), {
      kind: 'failed',
      reason: 'command exited with status 3',
      stderr: '',
    });
    assert.deepEqual(await collect('kill -KILL $$', request), {
      kind: 'failed',
      reason: 'command was killed by SIGKILL',
      stderr: '',
    });
  });

  test("a failure keeps the end of the command's standard error: its last 3 KiB, made what the server accepts", async () => {
    // 5,000 bytes, then a cut-free end holding an escape, a carriage return, a NUL, an invalid byte and a tab.
    const out = await collect(
      String.raw`head -c 5000 /dev/zero | tr '\000' x >&2; printf '\n\033[31mno\r\000\377\tend é\n' >&2; exit 4`,
      request,
      { onStderr: () => undefined },
    );
    assert.equal(out.kind, 'failed');
    const stderr = out.kind === 'failed' ? (out.stderr ?? '') : '';
    const end = '\n?[31mno??\uFFFD\tend é\n';
    assert.ok(stderr.endsWith(end), JSON.stringify(stderr.slice(-40)));
    assert.match(stderr, /^x+\n/);
    assert.ok(Buffer.byteLength(stderr) <= DECLINE_STDERR_MAX);
    assert.ok(isDeclineStderr(stderr), 'the server takes it as it is');
  });

  test('told to stop, it ends the command and everything the command started, at once', async () => {
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 100);
    assert.deepEqual(await collect('sleep 30 | cat', request, { signal: stop.signal }), { kind: 'stopped' });
    assert.ok(Date.now() - started < 2_000);
  });
});

test("declineStderr: a character cut at the start dropped, invalid UTF-8 U+FFFD, controls but \\n and \\t '?', at most 3 KiB", () => {
  const euro = Buffer.from('€'); // e2 82 ac
  assert.equal(declineStderr(Buffer.concat([euro.subarray(1), Buffer.from('ok')])), 'ok');
  assert.equal(declineStderr(Buffer.from([0x61, 0xff, 0x62, 0x1b, 0x0d, 0x00, 0x09, 0x0a, 0x7f])), 'a\uFFFDb???\t\n?');
  assert.equal(
    declineStderr(Buffer.from('\u0085\u202e')),
    '?\u202e',
    'C1 is a control; a format character is left to the page',
  );
  // 3,072 invalid bytes become 3,072 U+FFFD (9 KiB): the start goes until it fits.
  const grown = declineStderr(Buffer.alloc(DECLINE_STDERR_MAX, 0xff));
  assert.equal(grown, '\uFFFD'.repeat(1024));
  assert.ok(isDeclineStderr(grown));
});

describe('the watch against a scripted control server', () => {
  let fx: TlsFixture;
  type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };
  let seen: Seen[] = [];
  let script: Array<(res: ServerResponse, req: IncomingMessage, body: string) => void> = [];
  const server = createServer();
  let state: DeviceState;

  before(async () => {
    fx = await tlsFixture();
    server.setSecureContext({ cert: fx.control.certPem, key: fx.control.keyPem });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const next = script.shift();
        if (next) next(res, req, body);
        else res.writeHead(500).end('unscripted');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    state = {
      server: 'control.test',
      controlUrl: `https://control.test:${(server.address() as AddressInfo).port}`,
      pins: [certificatePin(fx.control.certPem)],
      device: 'd_watchunit000000',
      credential: 'c'.repeat(43),
      // As reported already: the watch reports facts only when they change (test/device_client/facts_loop.test.ts).
      facts: { ...localFacts() },
    };
  });
  after(() => server.close());

  const json = (status: number, doc: object) => (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  const plain =
    (status: number, text = '', headers: Record<string, string> = {}) =>
    (res: ServerResponse) =>
      res.writeHead(status, headers).end(text);
  const asked = (r: CollectionRequest) => ({
    id: r.id,
    privacy: r.privacy,
    reason: r.reason,
    created_at: r.createdAt,
    expires_at: r.expiresAt,
  });

  test('after an error it waits 1 s doubling, with Retry-After honoured, and starts over after an answer', async () => {
    seen = [];
    script = [
      plain(503, 'busy', { 'retry-after': '7' }),
      (_res, req) => req.socket.destroy(),
      plain(429, 'slow down'),
      json(200, { requests: [] }),
      plain(500, 'oops'),
    ];
    const stop = new AbortController();
    const slept: number[] = [];
    const logs: string[] = [];
    const end = await watch(state, {
      command: 'true',
      waitS: 25,
      once: false,
      contentType: 'text/plain',
      lookup,
      random: () => 1,
      signal: stop.signal,
      log: (l) => logs.push(l),
      sleep: async (ms) => {
        slept.push(ms);
        if (slept.length === 4) stop.abort();
      },
    });
    assert.equal(end, 'stopped');
    assert.deepEqual(slept, [7_000, 2_000, 4_000, 1_000]);
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.headers.authorization]),
      Array.from({ length: 5 }, () => ['GET', '/v1/requests?wait=25', `Bearer ${state.credential}`]),
    );
    assert.match(logs.join('\n'), /server answered 503 \(will try again\): busy; asking again in 7\.0 s/);
  });

  test('--once: each request answered once, at its level with X-Collection; a refused upload is declined with why', async () => {
    seen = [];
    const second = { ...request, id: 'r_8', privacy: 'full' as const, reason: 'crash report' };
    const both = json(200, { requests: [asked(request), asked(second)] });
    script = [
      both,
      plain(201, 'stored'),
      plain(403, 'privacy level more revealing than the request asked'),
      plain(204),
      // Still open, as far as this server says: already answered, so not answered again.
      both,
    ];
    const end = await watch(state, {
      command: 'echo "operator=alice $PADDOCK_REQUEST_ID"',
      waitS: 0,
      once: true,
      contentType: 'text/plain',
      lookup,
    });
    assert.equal(end, 'refused');
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.headers['x-collection'], s.headers['x-privacy-level'], s.body]),
      [
        ['GET', '/v1/requests?wait=0', undefined, undefined, ''],
        ['PUT', seen[1]?.url, 'r_7', 'redacted', 'operator=[redacted] r_7\n'],
        ['PUT', seen[2]?.url, 'r_8', 'full', 'operator=alice r_8\n'],
        [
          'POST',
          '/v1/requests/r_8/decline',
          undefined,
          undefined,
          JSON.stringify({ reason: 'upload refused (403): privacy level more revealing than the request asked' }),
        ],
        ['GET', '/v1/requests?wait=0', undefined, undefined, ''],
      ],
    );
    assert.match(seen[1]?.url ?? '', /^\/v1\/runs\/run-[0-9a-f]{24}$/);
    assert.ok(seen[1]?.headers['x-redaction-receipt'], 'a redacted upload carries its receipt');
  });

  test('a failing command declines with its exit status and the end of its standard error', async () => {
    seen = [];
    script = [json(200, { requests: [asked(request)] }), plain(204), json(200, { requests: [] })];
    const end = await watch(state, {
      command: 'echo "disk \\"sda\\" not found" >&2; exit 2',
      waitS: 0,
      once: true,
      contentType: 'text/plain',
      lookup,
    });
    assert.equal(end, 'done');
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.body]),
      [
        ['GET', '/v1/requests?wait=0', ''],
        [
          'POST',
          '/v1/requests/r_7/decline',
          JSON.stringify({ reason: 'command exited with status 2', stderr: 'disk "sda" not found\n' }),
        ],
        ['GET', '/v1/requests?wait=0', ''],
      ],
    );
  });

  test('a request of an unexpected shape is the server’s mistake, never run', async () => {
    seen = [];
    script = [json(200, { requests: [{ ...asked(request), id: '../../etc' }] })];
    await assert.rejects(
      watch(state, { command: 'echo never', waitS: 0, once: true, contentType: 'text/plain', lookup }),
      /a request of an unexpected shape/,
    );
    assert.equal(seen.length, 1);
  });
});
