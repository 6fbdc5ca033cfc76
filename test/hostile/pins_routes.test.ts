// GET /v1/pins (docs/contract.md section 16) on raw sockets of a live server, as an attacker sends
// it: other methods, bodies where none belong, malformed paths and queries, forged Paddock-Pins
// headers, hundreds pipelined. Each gets a precise answer, never a 500 or a stack; the answers
// carry the server's own digest, never one sent to it; the set is unchanged and the server healthy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pinsDigest } from '../../src/domain/pins.ts';
import { exchange, live, statuses } from '../support/live.ts';

test('GET /v1/pins on raw sockets: precise answers, never a 500, the server’s own digest on each', async () => {
  const l = await live();
  try {
    const { pins } = (await (await fetch(`${l.url}/v1/pins`)).json()) as { pins: string[] };
    const digest = pinsDigest(pins);
    const head = (line: string, extra = '') => `${line} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${extra}`;
    const cases: Array<[string, string, number]> = [
      ['plain', `${head('GET /v1/pins')}\r\n`, 200],
      ['HEAD', `${head('HEAD /v1/pins')}\r\n`, 200],
      ['a query of garbage', `${head('GET /v1/pins?%ZZ&pins=%00&pins[]=x')}\r\n`, 200],
      ['a query of 8 KiB', `${head(`GET /v1/pins?q=${'x'.repeat(8192)}`)}\r\n`, 200],
      ['a body on a GET', `${head('GET /v1/pins', 'Content-Length: 5\r\n')}\r\nhello`, 200],
      [
        'a forged Paddock-Pins',
        `${head('GET /v1/pins', `${'Paddock-Pins: 0000000000000000\r\n'.repeat(50)}`)}\r\n`,
        200,
      ],
      ['a junk credential', `${head('GET /v1/pins', `Authorization: Bearer ${'%'.repeat(300)}\r\n`)}\r\n`, 200],
      [
        'POST',
        `${head('POST /v1/pins', 'Content-Type: application/json\r\nContent-Length: 27\r\n')}\r\n{"pins":["sha256/evil="]}\n`,
        405,
      ],
      ['PUT', `${head('PUT /v1/pins', 'Content-Length: 2\r\n')}\r\n[]`, 405],
      ['DELETE', `${head('DELETE /v1/pins')}\r\n`, 405],
      ['a NUL in the path', `${head('GET /v1/pins%00')}\r\n`, 404],
      ['a path below it', `${head('GET /v1/pins/sha256%2F..%2F..')}\r\n`, 404],
      // Answered without reading it (a GET needs no body); the bad chunk then closes the connection with a 400.
      [
        'a chunked body that never ends right',
        `${head('GET /v1/pins', 'Transfer-Encoding: chunked\r\n')}\r\nzz\r\n`,
        200,
      ],
    ];
    for (const [why, bytes, status] of cases) {
      const raw = await exchange(l.port, `${bytes}${head('GET /healthz', 'Connection: close\r\n')}\r\n`, 3_000);
      const codes = statuses(raw);
      assert.equal(codes[0], status, `${why}: ${raw.slice(0, 300)}`);
      assert.ok(!codes.includes(500), why);
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, `${why}: no stack`);
      assert.doesNotMatch(raw, /paddock-pins: 0{16}/i, `${why}: a digest sent is never echoed`);
      if (status === 200 || status === 405) assert.match(raw, new RegExp(`paddock-pins: ${digest}\r\n`, 'i'), why);
      if (status === 405) assert.match(raw, /allow: GET, HEAD\r\n/i, why);
    }

    // Hundreds pipelined on one connection: every one answered with the set, in order.
    const many = `${head('GET /v1/pins')}\r\n`.repeat(300) + `${head('GET /v1/pins', 'Connection: close\r\n')}\r\n`;
    const codes = statuses(await exchange(l.port, many, 10_000));
    assert.equal(codes.length, 301);
    assert.ok(codes.every((code) => code === 200));

    // Nothing an attacker sent changed the set, and nothing went wrong on the server.
    assert.deepEqual(((await (await fetch(`${l.url}/v1/pins`)).json()) as { pins: string[] }).pins, pins);
    assert.equal((await fetch(`${l.url}/healthz`)).status, 200);
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records (no 500)',
    );
  } finally {
    await l.close();
  }
});
