// Searching across runs in the console (docs/contract.md section 21): GET /runs?text= lists the runs
// in the account's scope that hold every word (any case, `Ü` finds `ü`) and every "quoted phrase"
// as such, with the list's other filters, newest first, each with its first matching line marked;
// a bad text is the page itself with the form as sent (section 22), on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';
import { ACCOUNTS } from '../support/scenario.ts';

/** Uma's laptop and phone and Otto's box, with runs that hold the words in various ways. */
async function world(h: Harness) {
  const laptop = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Laptop');
  const phone = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Phone');
  const otto = await enrollDevice(h, ACCOUNTS.other.subject, 'Otto Box');
  const runs: Array<[typeof laptop, string, string, string]> = [
    [laptop, 'boot', 'started\nkernel panic at boot\nhalted\n', 'full'],
    [laptop, 'reversed', 'a panic in the kernel\n', 'full'],
    [laptop, 'umlaut', 'Grüße aus MÜNCHEN\n', 'redacted'],
    [phone, 'phone-boot', 'line one\r\nKERNEL Panic: oops\r\n', 'minimal'],
    [phone, 'html', 'ok\n<b>kernel</b> & panic <script>\n', 'full'],
    [otto, 'otto-secret', 'kernel panic on otto\n', 'full'],
    [phone, 'long', `${'a '.repeat(1000)}needle${' b'.repeat(1000)}\n`, 'full'],
  ];
  for (const [d, id, body, level] of runs) {
    h.clock.advance(1000);
    const res = await upload(h, d.credential, id, body, level);
    assert.equal(res.status, 201, `${id}: ${await res.text()}`);
  }
  return { laptop, phone, otto };
}

const get = (h: Harness, who: keyof typeof ACCOUNTS, path: string) =>
  h.request(path, { headers: { cookie: h.signIn(ACCOUNTS[who]).cookie } });

/** The ids of the runs a page lists, in order. */
const ids = (page: string) => [...page.matchAll(/<a href="\/runs\/[^/]+\/([^"?]+)">/g)].map((m) => m[1]);

async function search(h: Harness, who: keyof typeof ACCOUNTS, query: string) {
  const res = await get(h, who, `/runs?${query}`);
  const page = await res.text();
  assert.equal(res.status, 200, page);
  return { page, ids: ids(page) };
}

await onBothStores((name, open, skip) => {
  describe(`searching across runs in the console (${name})`, { skip }, () => {
    // One world per store, read by every test: a fresh PostgreSQL schema takes seconds to migrate.
    let h: Harness;
    let w: Awaited<ReturnType<typeof world>>;
    before(async () => {
      h = await harness({ store: await open() });
      w = await world(h);
    });
    after(() => h.close());
    const withWorld = (fn: (h: Harness, w: Awaited<ReturnType<typeof world>>) => Promise<void>) => fn(h, w);

    test('every word, any case, newest first, in the scope: another account’s runs never appear', () =>
      withWorld(async (h) => {
        assert.deepEqual((await search(h, 'user', 'text=kernel+panic')).ids, [
          'html',
          'phone-boot',
          'reversed',
          'boot',
        ]);
        assert.deepEqual((await search(h, 'user', 'text=PANIC')).ids, ['html', 'phone-boot', 'reversed', 'boot']);
        assert.deepEqual((await search(h, 'user', 'text=kernel+halted')).ids, ['boot']);
        assert.deepEqual((await search(h, 'user', 'text=otto')).ids, [], "Otto's run is not the user's");
        assert.deepEqual((await search(h, 'admin', 'text=otto')).ids, ['otto-secret']);
        assert.deepEqual((await search(h, 'user', 'text=nowhere')).ids, []);
      }));

    test('a quoted phrase holds as such; the same words in another order do not', () =>
      withWorld(async (h) => {
        assert.deepEqual((await search(h, 'user', 'text=%22kernel+panic%22')).ids, ['phone-boot', 'boot']);
        assert.deepEqual((await search(h, 'user', 'text=%22panic+kernel%22')).ids, []);
        assert.deepEqual((await search(h, 'user', 'text=halted+%22kernel+panic%22')).ids, ['boot']);
      }));

    test('Ü finds ü and ü finds Ü, whatever the database’s locale', () =>
      withWorld(async (h) => {
        assert.deepEqual((await search(h, 'user', `text=${encodeURIComponent('GRÜSSE')}`)).ids, []);
        assert.deepEqual((await search(h, 'user', `text=${encodeURIComponent('GRÜẞE')}`)).ids, ['umlaut']);
        assert.deepEqual((await search(h, 'user', `text=${encodeURIComponent('grüße')}`)).ids, ['umlaut']);
        assert.deepEqual((await search(h, 'user', `text=${encodeURIComponent('münchen')}`)).ids, ['umlaut']);
        assert.deepEqual((await search(h, 'user', `text=${encodeURIComponent('MÜNCHEN GRÜßE')}`)).ids, ['umlaut']);
      }));

    test('with the other filters: device and privacy level', () =>
      withWorld(async (h, { laptop, phone }) => {
        assert.deepEqual((await search(h, 'user', `text=panic&device=${laptop.device}`)).ids, ['reversed', 'boot']);
        assert.deepEqual((await search(h, 'user', 'text=panic&privacy=minimal')).ids, ['phone-boot']);
        assert.deepEqual((await search(h, 'user', `text=panic&device=${phone.device}&privacy=full`)).ids, ['html']);
        const { page } = await search(h, 'user', `text=panic&device=${phone.device}`);
        assert.ok(page.includes(`value="${phone.device}"`), 'the form keeps the device');
        assert.match(page, /<input id="text" name="text" value="panic"/, 'and the text');
      }));

    test('each run with its first matching line: its number links to it, the matches in <mark>, escaped', () =>
      withWorld(async (h, { laptop, phone }) => {
        const { page } = await search(h, 'user', 'text=kernel+panic');
        assert.ok(page.includes('First matching line'));
        assert.ok(
          page.includes(`<a href="/runs/${laptop.device}/boot?line=2#L2">line 2</a>`),
          'line 2 of boot, linked to its anchor',
        );
        assert.ok(page.includes('<code><mark>kernel</mark> <mark>panic</mark> at boot</code>'));
        assert.ok(page.includes(`<a href="/runs/${phone.device}/phone-boot?line=2#L2">line 2</a>`));
        assert.ok(page.includes('<code><mark>KERNEL</mark> <mark>Panic</mark>: oops</code>'), 'no CR shown');
        assert.ok(
          page.includes('<code>&lt;b&gt;<mark>kernel</mark>&lt;/b&gt; &amp; <mark>panic</mark> &lt;script&gt;</code>'),
        );
        assert.doesNotMatch(page, /<script>/);
        const phrase = (await search(h, 'user', 'text=%22kernel+panic%22')).page;
        assert.ok(phrase.includes('<code><mark>kernel panic</mark> at boot</code>'), 'a phrase is one mark');
        const plain = (await search(h, 'user', '')).page;
        assert.ok(!plain.includes('First matching line'), 'no column without a search');
      }));

    test('a long line is shown cut around its first match, with an ellipsis', () =>
      withWorld(async (h) => {
        const { page, ids: found } = await search(h, 'user', 'text=needle');
        assert.deepEqual(found, ['long']);
        const shown = /<code>(…[^<]*<mark>needle<\/mark>[^<]*…)<\/code>/.exec(page)?.[1] ?? '';
        assert.equal(shown.length, 1 + 200 + '<mark>needle</mark>'.length + 200 + 1);
      }));

    test('a bad text is a 400 with the page itself: the form as sent, the message beside the field, no rows', () =>
      withWorld(async (h, { laptop }) => {
        const cases: Array<[string, string, RegExp]> = [
          ['"unbalanced <b>', '&quot;unbalanced &lt;b&gt;', /closing quote/],
          ['!!! ---', '!!! ---', /only punctuation/],
          ['x'.repeat(201), 'x'.repeat(201), /at most 200 characters/],
          ['   ', '   ', /one or more words/],
        ];
        for (const [text, shown, message] of cases) {
          const res = await get(h, 'user', `/runs?text=${encodeURIComponent(text)}&device=${laptop.device}`);
          assert.equal(res.status, 400, text);
          assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
          const page = await res.text();
          assert.ok(
            page.includes(
              `<input id="text" name="text" value="${shown}" minlength="1" maxlength="200" aria-invalid="true" aria-describedby="text-hint text-error" />`,
            ),
            page,
          );
          const said = /<strong id="text-error">([^<]*)<\/strong>/.exec(page)?.[1] ?? '';
          assert.match(said, message);
          assert.ok(page.includes('role="alert"'));
          assert.ok(page.includes('<a href="#text">Text</a>'));
          assert.ok(page.includes(`value="${laptop.device}"`), 'the other fields as sent');
          assert.deepEqual(ids(page), [], 'no rows');
          assert.doesNotMatch(page, /<script>/);
        }
        assert.equal((await get(h, 'user', '/runs?text=')).status, 200, 'a blank field is no filter');
      }));
  });
});

test('every bad filter of the run list keeps the form: the field at fault is marked and described', async () => {
  const h = await harness();
  try {
    const cases: Array<[string, string, RegExp]> = [
      ['privacy=secret', 'privacy', /^privacy must be full, redacted or minimal$/],
      ['since=2026-02-30', 'since', /^since and until must be days/],
      ['until=yesterday', 'until', /^since and until must be days/],
      ['since=2026-03-02&until=2026-03-01', 'until', /^since must be a day before or equal to until$/],
      ['device=%3Cscript%3E', 'device', /^device must be a device id$/],
      ['flagged=no', 'flagged', /^flagged must be empty or yes$/],
      ['flagged=yes&flagged=yes', 'flagged', /^a query parameter is given more than once$/],
    ];
    for (const [query, field, message] of cases) {
      const res = await get(h, 'admin', `/runs?${query}`);
      assert.equal(res.status, 400, query);
      const page = await res.text();
      assert.match(page, new RegExp(`id="${field}"[^>]* aria-invalid="true" aria-describedby="${field}-error"`), query);
      assert.match(/<strong id="[a-z]+-error">([^<]*)<\/strong>/.exec(page)?.[1] ?? '', message, query);
      assert.equal(page.match(/aria-invalid/g)?.length, 1, 'one field at fault');
    }
    const sent = await (await get(h, 'admin', '/runs?device=%3Cscript%3E')).text();
    assert.ok(sent.includes('value="&lt;script&gt;"'), 'the bad value as sent, escaped');
    assert.ok(!sent.includes('<script>'));
    const select = await (await get(h, 'admin', '/runs?privacy=secret')).text();
    assert.ok(select.includes('<option value="secret" selected>secret</option>'), 'the select shows what was sent');
    const cursor = await get(h, 'admin', '/runs?before=-1&privacy=minimal');
    assert.equal(cursor.status, 400);
    const page = await cursor.text();
    assert.match(page, /role="alert"[\s\S]*bad page cursor/);
    assert.ok(page.includes('<option value="minimal" selected>'), 'the filters as sent');
    assert.doesNotMatch(page, /aria-invalid/, 'the cursor has no field');
  } finally {
    await h.close();
  }
});
