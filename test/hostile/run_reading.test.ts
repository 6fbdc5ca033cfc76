// The run view's reading parameters attacked on raw sockets of a live server (docs/contract.md section
// 21): `line`, `part` and `find` huge, negative, repeated, badly percent-encoded, full of regular
// expression syntax, or 10 KB long. Each answers 200 or 400 with the page, never a 500 nor a stack
// trace; a request pipelined behind each is still answered; the server stays healthy.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { exchange, type Live, live, statuses } from '../support/live.ts';

let l: Live;
let cookie = '';
let device = '';
before(async () => {
  l = await live();
  ({ cookie } = await l.signIn());
  const enrolled = await l.enroll('reader');
  device = enrolled.device;
  const put = (id: string, body: string | Buffer) =>
    fetch(`${l.url}/v1/runs/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${enrolled.credential}`, 'x-privacy-level': 'full' },
      body,
    });
  // A text run over two stored chunks, one line longer than a page; and a run that is not UTF-8.
  assert.equal((await put('text', `${'line (a|b)*.\n'.repeat(5000)}${'x'.repeat(300_000)}\nend\n`)).status, 201);
  assert.equal((await put('blob', Buffer.from([0xff, 0xfe, 0x00, 0x41]))).status, 201);
});
after(() => l.close());

const QUERIES = [
  'line=99999999999999999999999999999999',
  'line=999999999',
  'line=-1',
  'line=0',
  'line=1e9',
  'line=1.5',
  'line=0x10',
  'line=%2B1',
  'line=%EF%BC%91',
  'line=1&line=2',
  'line=',
  'line=%ZZ',
  'line=%',
  'line=5001&part=99999999',
  'part=-1',
  'part=2&part=3',
  'find=%ZZ',
  'find=%C3%28',
  'find=%ED%A0%80',
  'find=%00a',
  'find=a%0Ab',
  'find=.*(',
  'find=(a|b)*.',
  'find=%5B%5E%5D',
  'find=(%3F%3Cx%3E',
  'find=%5C',
  'find=%24%26a',
  'find=a&find=b',
  'find=',
  `find=${'a'.repeat(10_000)}`,
  `find=${'%C3%BC'.repeat(1_000)}`,
  `find=${'(a*)*'.repeat(40)}b`,
  'find=x&line=-1',
];

for (const run of ['text', 'blob']) {
  test(`run view (${run}): attacker values of line, part and find answer 200 or 400, never 500 nor a stack`, async () => {
    for (const query of QUERIES) {
      const raw = await exchange(
        l.port,
        `GET /runs/${device}/${run}?${query} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${cookie}\r\n\r\n` +
          `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`,
        15_000,
      );
      const codes = statuses(raw);
      assert.equal(codes.length, 2, `${query.slice(0, 60)}: both answered`);
      assert.ok(codes[0] === 200 || codes[0] === 400, `${query.slice(0, 60)}: ${codes[0]}`);
      assert.equal(codes[1], 200);
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
      assert.doesNotMatch(raw, /<script|<\/?b>/, 'nothing sent reaches the page unescaped');
    }
  });
}

test('ten finds of regular expression syntax at once over a run with a long line: all answered, quickly', async () => {
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      fetch(`${l.url}/runs/${device}/text?find=${encodeURIComponent(`${'(a|b)*.'.repeat(28)}${i}`)}`, {
        headers: { cookie },
      }),
    ),
  );
  for (const res of answers) {
    assert.equal(res.status, 200);
    assert.match(await res.text(), /No line of the run's 5,002 holds it\./);
  }
  assert.ok(Date.now() - started < 10_000, 'answered in seconds');
  assert.equal((await fetch(`${l.url}/healthz`)).status, 200);
});
