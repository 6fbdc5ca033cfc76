// Comparing two runs in the console (docs/contract.md section 21): GET /runs/{device}/{id}/compare?with=
// shows the path's run as the old side and `with` as the new, each change with both line numbers,
// removed lines in <del>, added in <ins>, and the counts; runs too large or not text get a page that
// says which and why, with both downloads; anything out of scope is the 404 of a missing run.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMPARE_LIMIT } from '../../src/domain/run_diff.ts';
import type { Store } from '../../src/store/store.ts';
import { onBothStores } from '../support/both_stores.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');

/** The user's device with runs `old` and `new`, and the other account's device with `theirs`. */
async function world(h: Harness, oldBody: string | Uint8Array, newBody: string | Uint8Array) {
  const mine = await enrollDevice(h, ACCOUNTS.user.subject, 'mine');
  const theirs = await enrollDevice(h, ACCOUNTS.other.subject, 'theirs');
  assert.equal((await upload(h, mine.credential, 'old', oldBody)).status, 201);
  assert.equal((await upload(h, mine.credential, 'new', newBody)).status, 201);
  assert.equal((await upload(h, theirs.credential, 'theirs', 'line 1\n')).status, 201);
  return { device: mine.device, theirs: theirs.device };
}

async function get(h: Harness, path: string, who: keyof typeof ACCOUNTS = 'user') {
  const res = await h.request(path, { headers: { cookie: h.signIn(ACCOUNTS[who]).cookie } });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  describe(`comparing two runs in the console (${name})`, { skip }, () => {
    test('a changed line and an added one: both line numbers, <del> and <ins>, the counts; CR and no final newline', async () => {
      const h = await harness({ store: await open() });
      try {
        const before = lines(20, (i) => `line ${i}`);
        const after = before.replace('line 10\n', 'line ten & <b>\n').replace('line 15\n', 'line 15\nline 15½\n');
        const { device } = await world(h, before, after);
        const page = await get(h, `/runs/${device}/old/compare?with=${device}/new`);
        assert.equal(page.status, 200);
        assert.equal(page.type, 'text/html; charset=UTF-8');
        assert.match(page.body, /<strong>1 line removed and 2 lines added<\/strong>, in\s+1 place\./);
        // One hunk: 3 lines before line 10, through 3 lines after line 15.
        assert.ok(page.body.includes('<pre>@@ -7,12 +7,13 @@\n'), page.body);
        // Old number, new number, marker, text: columns as wide as the largest number (2).
        assert.ok(page.body.includes(' 9  9  line 9\n'));
        assert.ok(page.body.includes('10    -<del>line 10</del>\n'));
        assert.ok(page.body.includes('   10 +<ins>line ten &amp; &lt;b&gt;</ins>\n'), 'escaped');
        assert.ok(page.body.includes('15 15  line 15\n'));
        assert.ok(page.body.includes('   16 +<ins>line 15½</ins>\n'));
        assert.ok(page.body.includes('18 19  line 18\n'));
        assert.ok(!page.body.includes('line 19'), 'no more than 3 lines of context');
        assert.ok(!page.body.includes('<b>'), 'nothing of the run is markup');
        // Old is ---, new is +++, each with its download.
        assert.match(page.body, /Old \(<code>---<\/code>\)<\/dt>\s*<dd>\s*<a href="\/runs\/[^/]+\/old">/);
        assert.match(page.body, /New \(<code>\+\+\+<\/code>\)<\/dt>\s*<dd>\s*<a href="\/runs\/[^/]+\/new">/);
        assert.ok(page.body.includes(`href="/runs/${device}/old/raw" download`));
        assert.ok(page.body.includes(`href="/runs/${device}/new/raw" download`));
        assert.ok(!/<script|<style|style=/.test(page.body), 'no script, no CSS');

        // The other way round, the same change is the other way round.
        const back = await get(h, `/runs/${device}/new/compare?with=${device}/old`);
        assert.match(back.body, /<strong>2 lines removed and 1 line added<\/strong>/);
        assert.ok(back.body.includes('<pre>@@ -7,13 +7,12 @@\n'));

        // A line's CR is its content, shown as ␍; a last line without its line feed is marked.
        const crlf = await enrollDevice(h, ACCOUNTS.user.subject, 'crlf');
        await upload(h, crlf.credential, 'a', 'one\r\ntwo\r\nend');
        await upload(h, crlf.credential, 'b', 'one\r\ntwo\nend\n');
        const ends = await get(h, `/runs/${crlf.device}/a/compare?with=${crlf.device}/b`);
        assert.ok(ends.body.includes('1 1  one\u240d\n'));
        assert.ok(ends.body.includes('2   -<del>two\u240d</del>\n'));
        assert.ok(ends.body.includes('3   -<del>end</del>\n    \\ No newline at end of file\n'));
        assert.ok(ends.body.includes('  2 +<ins>two</ins>\n'));
        assert.ok(ends.body.includes('  3 +<ins>end</ins>\n'));
      } finally {
        await h.close();
      }
    });

    test('binary and over 2 MiB: a page saying which and why, with both downloads; identical; two hunks', async () => {
      const h = await harness({ store: await open() });
      try {
        const { device } = await world(h, 'text\n', Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x00]));
        const binary = await get(h, `/runs/${device}/old/compare?with=${device}/new`);
        assert.equal(binary.status, 200);
        assert.ok(binary.body.includes('<h1>Cannot compare old with new</h1>'));
        assert.ok(binary.body.includes(`<code>${device}/new</code> cannot be compared: it is binary`));
        assert.ok(!binary.body.includes(`<code>${device}/old</code> cannot be compared`), 'the text one is fine');
        assert.ok(binary.body.includes(`href="/runs/${device}/old/raw" download`));
        assert.ok(binary.body.includes(`href="/runs/${device}/new/raw" download`));

        const big = await enrollDevice(h, ACCOUNTS.user.subject, 'big');
        assert.equal((await upload(h, big.credential, 'big', 'x'.repeat(COMPARE_LIMIT + 1))).status, 201);
        const tooBig = await get(h, `/runs/${big.device}/big/compare?with=${device}/old`);
        assert.equal(tooBig.status, 200);
        assert.ok(
          tooBig.body.includes(`<code>${big.device}/big</code> cannot be compared: it is larger than the 2.0 MiB`),
        );
        assert.ok(tooBig.body.includes(`href="/runs/${big.device}/big/raw" download`));
        assert.ok(tooBig.body.includes(`href="/runs/${device}/old/raw" download`));
        // Exactly 2 MiB is compared.
        assert.equal((await upload(h, big.credential, 'edge', 'x'.repeat(COMPARE_LIMIT))).status, 201);
        const edge = await get(h, `/runs/${big.device}/edge/compare?with=${device}/old`);
        assert.match(edge.body, /<strong>1 line removed and 1 line added<\/strong>/);

        // Identical runs say so; changes far apart are hunks of their own.
        const before = lines(40, (i) => `row ${i}`);
        const after = before.replace('row 2\n', 'row two\n').replace('row 39\n', '');
        const rows = await enrollDevice(h, ACCOUNTS.user.subject, 'rows');
        await upload(h, rows.credential, 'before', before);
        await upload(h, rows.credential, 'after', after);
        await upload(h, rows.credential, 'again', before);
        const same = await get(h, `/runs/${rows.device}/before/compare?with=${rows.device}/again`);
        assert.equal(same.status, 200);
        assert.match(same.body, /<strong>No differences:<\/strong> the two runs hold the same text\./);
        assert.ok(!same.body.includes('<pre>'));
        const two = await get(h, `/runs/${rows.device}/before/compare?with=${rows.device}/after`);
        assert.match(two.body, /<strong>2 lines removed and 1 line added<\/strong>, in\s+2 places\./);
        assert.ok(two.body.includes('<pre>@@ -1,5 +1,5 @@\n'));
        assert.ok(two.body.includes('<pre>@@ -36,5 +36,4 @@\n'));
      } finally {
        await h.close();
      }
    });

    test('out of scope, missing, or no `with`: the very 404 of a missing run', async () => {
      const h = await harness({ store: await open() });
      try {
        const { device, theirs } = await world(h, 'a\n', 'b\n');
        const missing = await get(h, `/runs/${device}/nope`);
        assert.equal(missing.status, 404);
        for (const path of [
          `/runs/${device}/old/compare?with=${theirs}/theirs`,
          `/runs/${theirs}/theirs/compare?with=${device}/old`,
          `/runs/${device}/old/compare?with=${device}/nope`,
          `/runs/${device}/nope/compare?with=${device}/old`,
          `/runs/${device}/old/compare`,
          `/runs/${device}/old/compare?with=`,
          `/runs/${device}/old/compare?with=${device}`,
          `/runs/${device}/old/compare?with=${device}/new&with=${device}/new`,
        ]) {
          const res = await get(h, path);
          assert.deepEqual([res.status, res.body, res.type], [missing.status, missing.body, missing.type], path);
        }
        // An administrator sees both.
        const admin = await get(h, `/runs/${device}/old/compare?with=${theirs}/theirs`, 'admin');
        assert.equal(admin.status, 200);
        assert.match(admin.body, /<strong>1 line removed and 1 line added<\/strong>/);
        // Signed out: to the sign-in page.
        const anonymous = await h.request(`/runs/${device}/old/compare?with=${device}/new`);
        assert.equal(anonymous.status, 303);
      } finally {
        await h.close();
      }
    });
  });
}

await onBothStores(suite);
