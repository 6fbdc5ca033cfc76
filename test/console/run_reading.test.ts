// Reading a long run and finding in it (docs/contract.md section 21): the run view by pages of at most
// 1,000 lines and 256 KiB with numbered, anchored lines and the links between pages; a binary run as
// hex; find with its matches in <mark>; bad values answered 400 with the page; downloads named by type.
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { utf8Check } from '../../src/domain/run_bytes.ts';
import { downloadExtension } from '../../src/http/download.ts';
import { onBothStores } from '../support/both_stores.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

/** A harness with one device of `user`, signed in; `put` uploads a run of it. */
async function reader(h: Harness) {
  const { device, credential } = await enrollDevice(h, ACCOUNTS.user.subject);
  const { cookie } = h.signIn(ACCOUNTS.user);
  return {
    device,
    async put(id: string, body: string | Uint8Array, contentType = 'text/plain') {
      assert.equal((await upload(h, credential, id, body, 'full', contentType)).status, 201);
    },
    async view(id: string, query = '') {
      const res = await h.request(`/runs/${device}/${id}${query}`, { headers: { cookie } });
      return { status: res.status, body: await res.text() };
    },
  };
}

/** `count` lines "line N of the run", each with its line feed. */
function numbered(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1} of the run\n`).join('');
}

/** The text of the page's lines, without their numbers. */
function linesOf(body: string): string[] {
  const pre = /<pre>\n([\s\S]*?)<\/pre>/.exec(body)?.[1] ?? '';
  return [...pre.matchAll(/ *<a id="L\d+" href="#L\d+">\d+<\/a> {2}([^\n]*)\n?/g)].map((m) => m[1] ?? '');
}

const href = (body: string, label: string) =>
  new RegExp(`<a href="([^"]*)">${label}</a>`).exec(body)?.[1]?.replaceAll('&amp;', '&');

await onBothStores((name, open, skip) => {
  test(
    `${name}: a 2,500-line run in three pages, numbered and anchored, with the links between them`,
    { skip },
    async () => {
      const h = await harness({ store: await open() });
      try {
        const r = await reader(h);
        await r.put('earlier', 'the run before\n');
        await r.put('lines', numbered(2500));
        const first = await r.view('lines');
        assert.equal(first.status, 200);
        assert.match(first.body, /Lines 1–1,000 of 2,500 · [\d.]+ KiB \([\d,]+ bytes\) · page 1\s+of 3/);
        assert.ok(first.body.includes('<a id="L1" href="#L1">1</a>  line 1 of the run\n'));
        assert.ok(first.body.includes('<a id="L1000" href="#L1000">1000</a>  line 1000 of the run'));
        assert.ok(!first.body.includes('id="L1001"'));
        assert.equal(linesOf(first.body).length, 1000);
        assert.equal(href(first.body, 'Next page'), `/runs/${r.device}/lines?line=1001`);
        assert.equal(href(first.body, 'Last page'), `/runs/${r.device}/lines?line=2001`);
        assert.equal(href(first.body, 'First page'), undefined, 'no link to the page shown');
        assert.equal(href(first.body, 'Previous page'), undefined);
        assert.ok(first.body.includes(`href="/runs/${r.device}/lines/raw" download`), 'the download stays');
        assert.ok(first.body.includes('Delete this run'), 'the delete button stays');
        assert.ok(
          first.body.includes(`<a href="/runs/${r.device}/earlier/compare?with=${r.device}/lines"`),
          'compare with the previous run',
        );
        assert.match(first.body, /Compare with this device's previous run \(earlier\)/);

        const second = await r.view('lines', '?line=1500');
        assert.match(second.body, /Lines 1,001–2,000 of 2,500/);
        assert.ok(second.body.includes('<a id="L1500" href="#L1500">1500</a>  line 1500 of the run'));
        assert.deepEqual(linesOf(second.body).slice(0, 1), ['line 1001 of the run']);
        assert.equal(href(second.body, 'First page'), `/runs/${r.device}/lines?line=1`);
        assert.equal(href(second.body, 'Previous page'), `/runs/${r.device}/lines?line=1`);
        assert.equal(href(second.body, 'Next page'), `/runs/${r.device}/lines?line=2001`);

        const last = await r.view('lines', '?line=999999');
        assert.equal(last.status, 200);
        assert.match(last.body, /Lines 2,001–2,500 of 2,500/);
        assert.equal(linesOf(last.body).length, 500);
        assert.equal(href(last.body, 'Previous page'), `/runs/${r.device}/lines?line=1001`);
        assert.equal(href(last.body, 'Next page'), undefined);

        const before = await r.view('earlier');
        assert.ok(!before.body.includes('/compare?'), 'the first run of a device has nothing to compare with');
      } finally {
        await h.close();
      }
    },
  );

  test(
    `${name}: a chunked run with a character across a chunk boundary is text, paged by bytes`,
    { skip },
    async () => {
      const h = await harness({ store: await open() });
      try {
        const r = await reader(h);
        // 2,621 lines of 100 bytes, then 43 bytes and "€": its 3 bytes cross the 256 KiB chunk boundary.
        const body = Buffer.concat([
          Buffer.from(`${'x'.repeat(99)}\n`.repeat(2621)),
          Buffer.from(`${'y'.repeat(43)}€ <b>&\n`),
          Buffer.from(`${'z'.repeat(99)}\n`.repeat(1000)),
        ]);
        assert.equal(body.indexOf('€'), 262_143);
        await r.put('chunked', body);
        const page = await r.view('chunked', '?line=2622');
        assert.match(page.body, /Lines 2,001–3,000 of 3,622/);
        assert.ok(page.body.includes(`2622</a>  ${'y'.repeat(43)}€ &lt;b&gt;&amp;\n`));
        assert.ok(!page.body.includes('not UTF-8 text'));
      } finally {
        await h.close();
      }
    },
  );
});

test('a run in a few long lines: a page holds at most 256 KiB', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    const line = (c: string) => `${c.repeat(100 * 1024 - 1)}\n`;
    await r.put('wide', ['a', 'b', 'c', 'd', 'e'].map(line).join(''));
    const first = await r.view('wide');
    assert.match(first.body, /Lines 1–2 of 5 · 500\.0 KiB \(512,000 bytes\) · page 1\s+of 3/);
    assert.equal(href(first.body, 'Next page'), `/runs/${r.device}/wide?line=3`);
    assert.match((await r.view('wide', '?line=4')).body, /Lines 3–4 of 5/);
    assert.match((await r.view('wide', '?line=5')).body, /Line 5 of 5/);
  } finally {
    await h.close();
  }
});

test('the "Go to line" form answers 303 to the line\'s page with its anchor; a bad line stays the 400 page', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    await r.put('long', numbered(2_500));
    const form = (await r.view('long')).body;
    assert.match(form, /<input type="hidden" name="go" value="line" \/>/);
    const { cookie } = h.signIn(ACCOUNTS.user);
    const go = await h.request(`/runs/${r.device}/long?line=1800&go=line`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(go.status, 303);
    assert.equal(go.headers.get('location'), `/runs/${r.device}/long?line=1800#L1800`);
    const bad = await r.view('long', '?line=0&go=line');
    assert.equal(bad.status, 400);
    assert.match(bad.body, /aria-invalid="true" aria-describedby="line-error"/);
  } finally {
    await h.close();
  }
});

test('a line longer than a page goes on over the next pages, cut between characters', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    // The 3-byte "€" crosses the 256 KiB bound: the first page stops before it.
    const long = `${'a'.repeat(262_143)}€${'b'.repeat(300_000)}`;
    await r.put('long', `${long}\nafter\n`);
    const one = await r.view('long');
    assert.match(one.body, /Line 1 of 2/);
    assert.match(one.body, /Line 1 goes on on the next page/);
    const two = await r.view('long', '?line=1&part=2');
    assert.match(two.body, /this page begins with its part 2/);
    assert.equal(href(one.body, 'Next page'), `/runs/${r.device}/long?line=1&part=2`);
    const three = await r.view('long', '?line=1&part=9');
    assert.equal(href(two.body, 'Next page'), `/runs/${r.device}/long?line=1&part=3`);
    assert.match(three.body, /Lines 1–2 of 2/);
    const parts = [one, two, three].map((p) => linesOf(p.body)[0]);
    assert.equal(parts[0], 'a'.repeat(262_143));
    assert.equal(parts.join(''), long);
    assert.deepEqual(linesOf(three.body).slice(1), ['after']);
    assert.match((await r.view('long', '?line=2')).body, /Lines 1–2 of 2/);
  } finally {
    await h.close();
  }
});

test('a run that is not UTF-8 is shown as hex, its first 4 KiB, with no lines and no find', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    await r.put('blob', Buffer.concat([Buffer.from([0x48, 0x69, 0xff, 0x00, 0x3c, 0x26]), randomBytes(10_000)]));
    const page = await r.view('blob', '?find=hi');
    assert.equal(page.status, 200);
    assert.match(
      page.body,
      /<pre>\n00000000 {2}48 69 ff 00 3c 26 [0-9a-f]{2} [0-9a-f]{2} {2}(?:[0-9a-f]{2} ){8} \|Hi\.\.&lt;&amp;/,
    );
    assert.match(page.body, /\n00000ff0 {2}/);
    assert.ok(!page.body.includes('\n00001000'));
    assert.match(page.body, /not UTF-8 text/);
    assert.ok(!page.body.includes('id="find"'));
    assert.ok(!page.body.includes('id="L1"'));
  } finally {
    await h.close();
  }
});

test('find: the matching lines with their numbers and matches in <mark>, case-insensitive for every letter', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    await r.put('words', 'Grüße ÜBER alles\nnothing here\nüber <b> und über\nUeber\n');
    const page = await r.view('words', '?find=%C3%BCber');
    assert.equal(page.status, 200);
    assert.match(page.body, /2 of the run's 4 lines hold it\./);
    assert.ok(page.body.includes(`<a href="/runs/${r.device}/words?line=1#L1">1</a>  Grüße <mark>ÜBER</mark> alles\n`));
    assert.ok(
      page.body.includes(
        `<a href="/runs/${r.device}/words?line=3#L3">3</a>  <mark>über</mark> &lt;b&gt; und <mark>über</mark>\n`,
      ),
    );
    assert.ok(page.body.includes('value="über"'), 'the form keeps the text');
    const none = await r.view('words', '?find=%5Bregex.*(');
    assert.equal(none.status, 200);
    assert.match(none.body, /No line of the run's 4 holds it\./);
  } finally {
    await h.close();
  }
});

test('find in lines longer than a chunk: a match across the chunk boundary, each line listed once, as an excerpt', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    // "Needle" crosses the 256 KiB chunk boundary inside a 600 KiB line; line 3 holds it twice, far apart.
    const first = `${'a'.repeat(262_140)}NEEDLE${'b'.repeat(300_000)}`;
    const third = `${'c'.repeat(100_000)}needle${'d'.repeat(100_000)}needle`;
    await r.put('wide', `${first}\nno match\n${third}\n`);
    const page = await r.view('wide', '?find=Needle');
    assert.match(page.body, /2 of the run's 3 lines hold it\./);
    assert.match(page.body, /\?line=1#L1">1<\/a> {2}…a{80}<mark>NEEDLE<\/mark>b+…\n/);
    assert.match(page.body, /\?line=3#L3">3<\/a> {2}…c{80}<mark>needle<\/mark>d+…\n/);
    assert.ok(page.body.length < 100_000, 'excerpts, not whole lines');
  } finally {
    await h.close();
  }
});

test('find lists at most 1,000 lines and says how many more hold the text', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    await r.put(
      'many',
      Array.from({ length: 1500 }, (_, i) => (i % 5 === 4 ? 'other\n' : `${i + 1} Needle\n`)).join(''),
    );
    const page = await r.view('many', '?find=needle');
    assert.match(
      page.body,
      /1,200 of the run's 1,500 lines hold it; the first 1,000 are listed, and 200 more lines hold it\./,
    );
    assert.equal([...page.body.matchAll(/<mark>Needle<\/mark>/g)].length, 1000);
  } finally {
    await h.close();
  }
});

test('a bad find or line answers 400 with the page, the value as sent and the message beside the field', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    await r.put('run', numbered(3));
    const script = `<script>alert(1)</script>${'x'.repeat(200)}`;
    for (const [query, field, message] of [
      [`?find=${encodeURIComponent(script)}`, 'find', /Find at most 200 characters \(this is 225\)\./],
      ['?find=%20%20', 'find', /Enter the text to find\./],
      ['?find=', 'find', /Enter the text to find\./],
      ['?find=...%20%3F!', 'find', /at least one letter or digit/],
      ['?find=a&find=b', 'find', /Give one text to find\./],
      ['?line=0', 'line', /Give a line number/],
      ['?line=-3', 'line', /Give a line number/],
      ['?line=1e9', 'line', /Give a line number/],
      ['?line=12345678901', 'line', /Give a line number/],
      ['?line=1&line=2', 'line', /Give line once\./],
      ['?line=2&part=0', 'line', /part of a line/],
    ] as const) {
      const page = await r.view('run', query);
      assert.equal(page.status, 400, query);
      assert.match(page.body, new RegExp(`id="${field}"[^>]*aria-invalid="true" aria-describedby="${field}-error"`));
      assert.match(page.body, new RegExp(`<strong id="${field}-error">`));
      assert.match(page.body, message, query);
      assert.ok(page.body.includes('id="L1"'), 'the page itself, with its lines');
      assert.ok(!page.body.includes('<script>'));
    }
    const sent = await r.view('run', `?find=${encodeURIComponent(script)}`);
    assert.ok(sent.body.includes('value="&lt;script&gt;alert(1)&lt;/script&gt;xxx'), 'the value as sent, escaped');
    const line = await r.view('run', '?line=%3Cb%3E');
    assert.ok(line.body.includes('value="&lt;b&gt;"'));
    assert.equal((await r.view('run', '?other=1&line=2')).status, 200, 'other parameters are ignored');
  } finally {
    await h.close();
  }
});

test('a missing or out-of-scope run stays a plain 404, whatever the query', async () => {
  const h = await harness();
  try {
    const r = await reader(h);
    await r.put('mine', 'x\n');
    const other = h.signIn(ACCOUNTS.other).cookie;
    const res = await h.request(`/runs/${r.device}/mine?find=x&line=1`, { headers: { cookie: other } });
    assert.equal(res.status, 404);
    assert.equal(await res.text(), 'run not found\n');
    assert.equal((await r.view('nope', '?line=0')).status, 404);
  } finally {
    await h.close();
  }
});

test('downloads are named the run id plus the extension of its content type', async () => {
  for (const [type, extension] of [
    ['application/json', '.json'],
    ['application/problem+json; charset=utf-8', '.json'],
    ['application/xml', '.xml'],
    ['text/xml', '.xml'],
    ['application/atom+xml', '.xml'],
    ['text/x-log', '.log'],
    ['text/log', '.log'],
    ['text/plain; charset=ISO-8859-1', '.txt'],
    ['Text/CSV', '.txt'],
    ['application/octet-stream', '.bin'],
    ['image/png', '.bin'],
    ['', '.bin'],
  ] as const)
    assert.equal(downloadExtension(type), extension, type);
  const h = await harness();
  try {
    const r = await reader(h);
    await r.put('report.v2', '{"a":1}', 'application/json');
    const res = await h.request(`/runs/${r.device}/report.v2/raw`, {
      headers: { cookie: h.signIn(ACCOUNTS.user).cookie },
    });
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="report.v2.json"');
  } finally {
    await h.close();
  }
});

test('the UTF-8 check over chunks agrees with a whole check, wherever the chunks are cut', () => {
  const texts = [
    Buffer.from('a€b😀c é\u{10ffff}'),
    Buffer.from([0x61, 0xe2, 0x82]),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from([0xc3, 0xa9, 0xa9]),
    Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0x80]),
    Buffer.from([0xff]),
  ];
  for (const text of texts)
    for (let a = 0; a <= text.length; a++)
      for (let b = a; b <= text.length; b++) {
        const check = utf8Check();
        for (const part of [text.subarray(0, a), text.subarray(a, b), text.subarray(b)]) check.push(part);
        assert.equal(check.end(), isUtf8(text), `${text.toString('hex')} cut at ${a}, ${b}`);
      }
});
