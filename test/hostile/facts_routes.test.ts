// PUT /v1/device/facts, enrollment's `facts` and the `fact=` filter (docs/contract.md section 16)
// attacked on raw sockets of a live server: facts of every forbidden shape, bytes that are not
// UTF-8, keys given twice, deep nesting, lying and chunked lengths, other methods and paths, and
// filters of every bad shape, raw and percent-encoded. Each gets a precise 4xx, never a 500 or a
// stack; the next request on the connection is answered; the facts are as they were.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exchange, live, statuses } from '../support/live.ts';

test('facts of every forbidden shape on raw sockets: each refused precisely, nothing changed, no 500', async () => {
  const l = await live();
  try {
    const { cookie } = await l.signIn();
    const token = await l.accessToken();
    const { device, credential } = await l.enroll('reporting');
    const kept = { os: 'linux', hostname: 'gate-1' };
    const first = await fetch(`${l.url}/v1/device/facts`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}` },
      body: JSON.stringify(kept),
    });
    assert.equal(first.status, 204);
    const factsNow = async () =>
      (await (
        await fetch(`${l.url}/api/v1/devices/${device}`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { facts: unknown; facts_reported_at: string };
    const before = await factsNow();
    assert.deepEqual(before.facts, kept);

    const head = (line: string, extra = '') => `${line} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${extra}`;
    const put = (body: Buffer | string, extra = `Authorization: Bearer ${credential}\r\n`) => {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      return Buffer.concat([
        Buffer.from(head('PUT /v1/device/facts', `${extra}Content-Length: ${bytes.length}\r\n`) + '\r\n'),
        bytes,
      ]);
    };
    const bytes = (...parts: Array<string | number[]>) =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    const cases: Array<[why: string, request: Buffer | string, status: number]> = [
      ['33 facts', put(JSON.stringify(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])))), 400],
      ['a NUL in a value', put('{"os": "li\\u0000nux"}'), 400],
      ['a raw NUL byte in a value', put(bytes('{"os": "li', [0], 'nux"}')), 400],
      ['an ESC sequence', put('{"os": "\\u001b[31mred"}'), 400],
      ['a bidi override', put(bytes('{"os": "', [0xe2, 0x80, 0xae], 'xunil"}')), 400],
      ['invalid UTF-8', put(bytes('{"os": "', [0xc3, 0x28], '"}')), 400],
      ['an overlong slash', put(bytes('{"os": "', [0xc0, 0xaf], '"}')), 400],
      ['a UTF-16 body', put(Buffer.from('{"os": "linux"}', 'utf16le')), 400],
      ['a lone surrogate', put('{"os": "\\udfff"}'), 400],
      ['a number', put('{"os": 1e999}'), 400],
      ['nested deep', put(`{"os": ${'['.repeat(4000)}${']'.repeat(4000)}}`), 400],
      ['a key given twice', put('{"os": "linux", "os": "evil"}'), 400],
      ['__proto__', put('{"__proto__": {"os": "evil"}}'), 400],
      ['constructor pollution', put('{"constructor": {"prototype": {"x": "1"}}}'), 400],
      ['a key of 300 bytes', put(JSON.stringify({ ['k'.repeat(300)]: 'v' })), 400],
      ['an array', put('[]'), 400],
      ['empty', put(''), 400],
      ['above 8 KiB', put(JSON.stringify({ pad: 'x'.repeat(9000) })), 413],
      [
        'chunked above 8 KiB',
        `${head('PUT /v1/device/facts', `Authorization: Bearer ${credential}\r\nTransfer-Encoding: chunked\r\n`)}\r\n${'400\r\n'.concat(' '.repeat(1024), '\r\n').repeat(9)}0\r\n\r\n`,
        413,
      ],
      ['no credential', put('{"os": "evil"}', ''), 401],
      ['a malformed credential', put('{"os": "evil"}', `Authorization: Bearer ${'%'.repeat(300)}\r\n`), 401],
      ['another scheme', put('{"os": "evil"}', `Authorization: Basic ${credential}\r\n`), 401],
      ['GET', `${head('GET /v1/device/facts', `Authorization: Bearer ${credential}\r\n`)}\r\n`, 405],
      ['POST', put('{"os": "evil"}').toString('latin1').replace('PUT', 'POST'), 405],
      ['a path below it', `${head('PUT /v1/device/facts/os', 'Content-Length: 0\r\n')}\r\n`, 404],
      ['a NUL in the path', `${head('PUT /v1/device/facts%00', 'Content-Length: 0\r\n')}\r\n`, 404],
      [
        'enrollment with bad facts',
        `${head('POST /v1/enroll', 'Content-Type: application/json\r\nContent-Length: 58\r\n')}\r\n{"token": "${'A'.repeat(16)}", "facts": {"os": "a\\u0000b"}}`,
        400,
      ],
      // Bytes that are not UTF-8 decode as U+FFFD, a visible character: a filter that matches nothing.
      ...(
        [
          ['os', 400],
          ['OS=linux', 400],
          ['=x', 400],
          ['os=%00', 400],
          ['os=%C3%28', 200],
          ['os=%E2%80%AE', 400],
          [`os=${'x'.repeat(256)}`, 400],
          [`os=${'%41'.repeat(3000)}`, 400],
        ] as const
      ).flatMap(([fact, status]): Array<[string, string, number]> => [
        [`filter ${fact.slice(0, 20)}`, `${head(`GET /devices?fact=${fact}`, `Cookie: ${cookie}\r\n`)}\r\n`, status],
        [
          `API filter ${fact.slice(0, 20)}`,
          `${head(`GET /api/v1/devices?fact=${fact}`, `Authorization: Bearer ${token}\r\n`)}\r\n`,
          status,
        ],
      ]),
      [
        '6 filters',
        `${head(`GET /api/v1/devices?${Array.from({ length: 6 }, (_, i) => `fact=k${i}%3Dv`).join('&')}`, `Authorization: Bearer ${token}\r\n`)}\r\n`,
        400,
      ],
    ];
    for (const [why, request, status] of cases) {
      const tail = `${head('GET /healthz', 'Connection: close\r\n')}\r\n`;
      const raw = await exchange(
        l.port,
        Buffer.concat([typeof request === 'string' ? Buffer.from(request, 'latin1') : request, Buffer.from(tail)]),
      );
      const codes = statuses(raw);
      assert.equal(codes[0], status, `${why}: ${raw.slice(0, 400)}`);
      assert.equal(codes[1], 200, `${why}: the next request on the connection is answered\n${raw.slice(0, 400)}`);
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, `${why}: no stack`);
      assert.doesNotMatch(raw, /\u001b|\u202e/, `${why}: nothing sent is echoed raw`);
    }
    assert.deepEqual(await factsNow(), before, 'the facts and their time are as they were');
    // A good filter still reads.
    const found = await fetch(`${l.url}/api/v1/devices?fact=${encodeURIComponent('hostname=gate-1')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.deepEqual(
      ((await found.json()) as { items: Array<{ id: string }> }).items.map((d) => d.id),
      [device],
    );
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records (no 500)',
    );
  } finally {
    await l.close();
  }
});
