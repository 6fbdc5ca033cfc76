// Comparing two runs (docs/contract.md section 21) attacked on raw sockets of a live server, on the
// console's page and the API's diff alike: `with` malformed, encoded, huge, repeated; runs past the
// 2 MiB limit, binary, and two built to make the diff costly. Never a 500, never a stack trace,
// no error record, and the costly pair is answered in bounded time, also when asked for six times at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMPARE_LIMIT } from '../../src/domain/run_diff.ts';
import { exchange, live, statuses } from '../support/live.ts';

test('compare: malformed `with`, huge and binary runs never get a 500 or a stack', async () => {
  const l = await live();
  try {
    const { cookie } = await l.signIn();
    const token = await l.accessToken('hostile compare');
    const { device, credential } = await l.enroll('target');
    const half = COMPARE_LIMIT / 4;
    for (const [id, body] of [
      ['a', 'one\ntwo\n'],
      ['b', 'one\nthree\n'],
      ['big', Buffer.alloc(COMPARE_LIMIT + 1, 0x61)],
      ['bin', Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0xc3, 0x28])],
      // 2 MiB each, the same lines in swapped halves: Myers' costliest shape (D = N + M).
      ['xy', Buffer.from('x\n'.repeat(half) + 'y\n'.repeat(half))],
      ['yx', Buffer.from('y\n'.repeat(half) + 'x\n'.repeat(half))],
    ] as const) {
      const res = await fetch(`${l.url}/v1/runs/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
        body,
      });
      assert.equal(res.status, 201, id);
    }
    const withs = [
      '..%2f..%2fetc%2fpasswd',
      `${device}%2Fb`,
      `${device}%252Fb`,
      `..%2F${device}%2Fb`,
      `${device}/..`,
      `${device}/.`,
      `${device}/b/`,
      `${device}/b%00`,
      '%ZZ',
      '%C3%28/%C3%28',
      `${device}/b&with=${device}/a`,
      Array.from({ length: 200 }, () => `${device}/b`).join('&with='),
      `${device}/${'b'.repeat(129)}`,
      `${'d'.repeat(65)}/b`,
      `${device}/${'b'.repeat(20_000)}`,
      `${device}/big`,
      `${device}/bin`,
    ];
    const answers: Array<[string, number[]]> = [];
    for (const [prefix, auth] of [
      ['', `Cookie: ${cookie}`],
      ['/api/v1', `Authorization: Bearer ${token}`],
    ])
      for (const path of [`/runs/${device}/a/compare`, `/runs/${device}%2Fa/compare`, `/runs/..%2F${device}/a/compare`])
        for (const w of withs) {
          const target = `${prefix}${path}?with=${w}`;
          const raw = await exchange(
            l.port,
            `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${auth}\r\nConnection: close\r\n\r\n`,
          );
          const got = statuses(raw);
          answers.push([target.slice(0, 120), got]);
          assert.equal(got.length, 1, target.slice(0, 200));
          assert.ok((got[0] ?? 500) < 500, `${target.slice(0, 200)}: ${raw.slice(0, 300)}`);
          assert.ok(!/\n\s+at \S+ \(|Error:|node:internal/.test(raw), `no stack trace: ${raw.slice(0, 2000)}`);
        }
    // The encoded slash in `with` is a slash once decoded: the comparison is made.
    assert.deepEqual(answers.find(([t]) => t === `/runs/${device}/a/compare?with=${device}%2Fb`)?.[1], [200]);

    // The costly pair: answered whole, in bounded time, with the note that the diff is coarse.
    for (const [prefix, headers] of [
      ['', { cookie }],
      ['/api/v1', { authorization: `Bearer ${token}` }],
    ] as const) {
      const started = Date.now();
      const res = await fetch(`${l.url}${prefix}/runs/${device}/xy/compare?with=${device}/yx`, { headers });
      const text = await res.text();
      assert.equal(res.status, 200);
      assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
      if (prefix === '') assert.match(text, /differ in too many places[^]*The page stops after 10000 lines/);
      else assert.ok(text.startsWith(`--- ${device}/xy\t`));
    }
    // Six costly comparisons asked at once: they take their turns (COMPARES_AT_ONCE at a time),
    // every one answered whole and alike.
    const together = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${l.url}/api/v1/runs/${device}/xy/compare?with=${device}/yx`, {
          headers: { authorization: `Bearer ${token}` },
        }).then(async (r) => [r.status, (await r.text()).length] as const),
      ),
    );
    assert.equal(new Set(together.map(([status, length]) => `${status}:${length}`)).size, 1, JSON.stringify(together));
    assert.equal(together[0]?.[0], 200);
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records',
    );
  } finally {
    await l.close();
  }
});
