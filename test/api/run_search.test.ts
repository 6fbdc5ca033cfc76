// Searching across runs through the API (docs/contract.md section 21): GET /api/v1/runs?text= gives
// the console's search as JSON, each run with `match`, its first matching line (cut around the
// match as the console cuts it); a bad text is the API's 400 problem naming the field; on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleAccessToken, enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';
import { ACCOUNTS } from '../support/scenario.ts';

type Listed = {
  items: Array<{ id: string; device: string; privacy: string; match?: { line: number; text: string } }>;
  next?: string;
};

await onBothStores((name, open, skip) => {
  describe(`GET /api/v1/runs?text= (${name})`, { skip }, () => {
    let h: Harness;
    let mine: { device: string; credential: string };
    let bearer: string;
    const get = (path: string) => h.request(path, { headers: { authorization: `Bearer ${bearer}` } });
    const listed = async (query: string) => {
      const res = await get(`/api/v1/runs?${query}`);
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as Listed;
    };

    before(async () => {
      h = await harness({ store: await open() });
      mine = await enrollDevice(h, ACCOUNTS.user.subject);
      const theirs = await enrollDevice(h, ACCOUNTS.other.subject);
      const runs: Array<[typeof mine, string, string, string]> = [
        [mine, 'disk', 'mount ok\nDisk FULL on /var\n', 'full'],
        [mine, 'order', 'full disk? no: the disk is full\n', 'redacted'],
        [mine, 'other', 'nothing here\n', 'full'],
        [mine, 'long', `${'x'.repeat(500)} disk full ${'y'.repeat(500)}`, 'minimal'],
        [theirs, 'theirs', 'disk full too\n', 'full'],
      ];
      for (const [d, id, body, level] of runs) {
        h.clock.advance(1000);
        assert.equal((await upload(h, d.credential, id, body, level)).status, 201);
      }
      bearer = (await consoleAccessToken(h, ACCOUNTS.user)).value;
    });
    after(() => h.close());

    test('the runs holding every word, newest first, in scope, each with its first matching line', async () => {
      const page = await listed('text=disk+full');
      assert.deepEqual(
        page.items.map((r) => r.id),
        ['long', 'order', 'disk'],
      );
      assert.ok(
        page.items.every((r) => r.device === mine.device),
        "never another account's",
      );
      assert.deepEqual(page.items[2]?.match, { line: 2, text: 'Disk FULL on /var' });
      assert.deepEqual(page.items[1]?.match, { line: 1, text: 'full disk? no: the disk is full' });
      const long = page.items[0]?.match;
      assert.equal(long?.line, 1);
      // 200 characters on each side of the first match, `disk`.
      assert.equal(long?.text, `…${'x'.repeat(199)} disk full ${'y'.repeat(200 - ' full '.length)}…`);
    });

    test('a quoted phrase as such; with the other filters; a list without text has no match', async () => {
      assert.deepEqual(
        (await listed('text=%22disk+full%22')).items.map((r) => r.id),
        ['long', 'disk'],
      );
      assert.deepEqual(
        (await listed('text=%22full+disk%22')).items.map((r) => r.id),
        ['order'],
      );
      assert.deepEqual(
        (await listed('text=disk&privacy=redacted')).items.map((r) => r.id),
        ['order'],
      );
      assert.deepEqual(
        (await listed(`text=disk&device=${mine.device}&privacy=full`)).items.map((r) => r.id),
        ['disk'],
      );
      const all = await listed('');
      assert.equal(all.items.length, 4);
      assert.ok(all.items.every((r) => !('match' in r)));
      assert.equal((await listed('text=')).items.length, 4, 'a blank text is no filter, as in the console');
    });

    test('a bad text is a 400 problem naming the field and the rule it broke', async () => {
      const cases: Array<[string, RegExp]> = [
        ['%22disk', /closing quote/],
        ['...', /only punctuation/],
        ['x'.repeat(201), /at most 200 characters/],
        ['%20%20', /one or more words/],
      ];
      for (const [text, rule] of cases) {
        const res = await get(`/api/v1/runs?text=${text}`);
        assert.equal(res.status, 400, text);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
        const problem = (await res.json()) as { field: string; detail: string };
        assert.equal(problem.field, 'text');
        assert.match(problem.detail, /^text must be 1 to 200 characters/);
        assert.match(problem.detail, rule);
      }
      const twice = await get('/api/v1/runs?text=a&text=b');
      assert.equal(twice.status, 400);
      assert.equal(((await twice.json()) as { field: string }).field, 'text');
    });
  });
});
