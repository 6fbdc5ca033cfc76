// The search across runs (docs/contract.md section 21) attacked through its one parameter, `text`, in
// the console (GET /runs) and the API (GET /api/v1/runs), on both stores: 200 and 201 characters,
// only punctuation, unbalanced quotes, NUL and invalid percent-encoding, the parameter repeated,
// regular-expression metacharacters, 5,000 words; then raw bytes on a live server's sockets. Every
// answer is a 200 or a 400 that names the rule (the console's with its page, section 22): never a
// 500, never a stack trace, never an error logged, and a metacharacter matches only itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleAccessToken, enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';
import { exchange, live, statuses } from '../support/live.ts';
import { ACCOUNTS } from '../support/scenario.ts';

/** A query's `text=` part as sent (already percent-encoded, or raw on purpose), and the status it must get. */
const CASES: Array<[name: string, query: string, status: 200 | 400]> = [
  ['200 characters', `text=${'a '.repeat(99)}ab`, 200],
  ['200 characters of one word', `text=${'w'.repeat(200)}`, 200],
  ['201 characters', `text=${'a '.repeat(100)}a`, 400],
  ['201 characters, two bytes each', `text=${'%C3%BC'.repeat(201)}`, 400],
  ['200 characters, two bytes each', `text=${'%C3%BC'.repeat(200)}`, 200],
  ['only punctuation', 'text=!%40%23%24%25%5E%26*()-%2B%3D%5B%5D%7B%7D', 400],
  ['only quotes', 'text=%22%22', 400],
  ['an unbalanced quote', 'text=%22kernel+panic', 400],
  ['three quotes', 'text=%22a%22%22', 400],
  ['a NUL alone', 'text=%00', 400],
  ['a NUL between words', 'text=kernel%00panic', 200],
  ['invalid percent-encoding', 'text=%ZZ%G0%', 200],
  ['an invalid UTF-8 sequence', 'text=%C3%28', 400],
  ['a lone surrogate, encoded', 'text=%ED%A0%80kernel', 200],
  ['repeated', 'text=kernel&text=panic', 400],
  ['repeated blank', 'text=&text=', 400],
  ['regular-expression metacharacters', `text=${encodeURIComponent('.* (a|b) [x] \\ ^$ +? {2}')}`, 200],
  ['a right-to-left override', `text=${encodeURIComponent('\u202Ekernel')}`, 200],
  ['5,000 words', `text=${Array.from({ length: 5000 }, (_, i) => `w${i}`).join('+')}`, 400],
  ['5,000 quotes', `text=${'%22'.repeat(5000)}`, 400],
];

await onBothStores((name, open, skip) => {
  describe(`hostile searches (${name})`, { skip }, () => {
    let h: Harness;
    let cookie: string;
    let bearer: string;
    before(async () => {
      h = await harness({ store: await open() });
      const d = await enrollDevice(h, ACCOUNTS.user.subject);
      await upload(h, d.credential, 'plain', 'kernel panic\nab a\n');
      await upload(h, d.credential, 'meta', 'a line of .* (a|b) [x] \\ ^$ +? {2} <script>alert(1)</script>\n');
      // Not valid UTF-8: binary, never indexed, never searched.
      await upload(h, d.credential, 'binary', Buffer.from([0x6b, 0x65, 0x72, 0x6e, 0x65, 0x6c, 0x20, 0xff, 0xfe]));
      cookie = h.signIn(ACCOUNTS.user).cookie;
      bearer = (await consoleAccessToken(h, ACCOUNTS.user)).value;
    });
    after(() => h.close());

    test('every hostile text is a 200 or a 400 naming its rule, in the console and the API', async () => {
      for (const [what, query, status] of CASES) {
        const started = Date.now();
        const page = await h.request(`/runs?${query}`, { headers: { cookie } });
        const body = await page.text();
        assert.equal(page.status, status, `console, ${what}`);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/, `console, ${what}`);
        assert.doesNotMatch(body, /at .*\.ts:\d+|Error:|<script>/, `console, ${what}`);
        if (status === 400) assert.match(body, /aria-invalid="true" aria-describedby="text-hint text-error"/, what);
        const api = await h.request(`/api/v1/runs?${query}`, { headers: { authorization: `Bearer ${bearer}` } });
        const json = await api.text();
        assert.equal(api.status, status, `API, ${what}: ${json.slice(0, 200)}`);
        assert.doesNotMatch(json, /at .*\.ts:\d+|Error:/, `API, ${what}`);
        if (status === 400) assert.equal((JSON.parse(json) as { field: string }).field, 'text', what);
        assert.ok(Date.now() - started < 2_000, `${what}: answered at once`);
      }
      assert.equal(h.logs.filter((r) => r.level === 'error').length, 0, JSON.stringify(h.logs.slice(-3)));
    });

    test('a metacharacter matches only itself: the words of the text, never a pattern', async () => {
      const ids = async (text: string) => {
        const res = await h.request(`/api/v1/runs?text=${encodeURIComponent(text)}`, {
          headers: { authorization: `Bearer ${bearer}` },
        });
        assert.equal(res.status, 200, text);
        return ((await res.json()) as { items: Array<{ id: string }> }).items.map((r) => r.id);
      };
      assert.deepEqual(await ids('(a|b)'), ['meta'], 'the words a and b, which only meta holds whole');
      assert.deepEqual(await ids('kern.*'), [], 'kern is not a word of any run');
      assert.deepEqual(await ids('x'), ['meta']);
      assert.deepEqual(await ids('kernel'), ['plain'], 'the binary run is never found');
      const page = await (await h.request('/runs?text=alert', { headers: { cookie } })).text();
      assert.ok(
        page.includes('&lt;script&gt;<mark>alert</mark>(1)&lt;/script&gt;'),
        'the line escaped, the match marked',
      );
    });
  });
});

test('raw bytes in the query on a live server’s sockets: never a 500, the connection still answers', async () => {
  const l = await live();
  try {
    const { cookie } = await l.signIn();
    const bearer = await l.accessToken();
    const targets = [
      '/runs?text=%00%00',
      '/runs?text=%ZZ',
      '/runs?text=%C3%28%22',
      '/runs?text="unbalanced',
      `/runs?text=${'%22'.repeat(2000)}`,
      '/api/v1/runs?text=%00',
      '/api/v1/runs?text=%FF%FE',
      '/api/v1/runs?text=a&text=a',
    ];
    for (const target of targets) {
      const auth = target.startsWith('/api/') ? `Authorization: Bearer ${bearer}` : `Cookie: ${cookie}`;
      const raw = await exchange(
        l.port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${auth}\r\n\r\n` +
          `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`,
      );
      const codes = statuses(raw);
      assert.equal(codes.length, 2, `${target.slice(0, 60)}: both answered`);
      assert.ok(
        codes.every((c) => c < 500),
        `${target.slice(0, 60)}: ${codes.join(', ')}`,
      );
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
    }
    assert.equal(l.logs.filter((r) => r.level === 'error').length, 0);
  } finally {
    await l.close();
  }
});
