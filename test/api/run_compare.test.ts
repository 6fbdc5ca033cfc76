// GET /api/v1/runs/{device}/{id}/compare?with= (docs/contract.md section 21): the unified diff in the
// format of `diff -u`, which the real GNU patch applies to the old run's bytes to make the new run's
// exactly; scoped as the other run routes; a problem when a run cannot be compared.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { COMPARE_LIMIT } from '../../src/domain/run_diff.ts';
import type { Store } from '../../src/store/store.ts';
import { apiToken } from '../support/api_table.ts';
import { onBothStores } from '../support/both_stores.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { responseChecker } from '../support/openapi.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const run = promisify(execFile);
const check = responseChecker();
const TEMPLATE = '/api/v1/runs/{device}/{id}/compare';
const numbered = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}\n`).join('');

/** Pairs of runs, old then new: each diff must take the old to the new byte for byte. */
const PAIRS: Array<[name: string, old: string, new: string]> = [
  ['changed lines in the middle', numbered(30), numbered(30).replace('line 12\n', 'twelve\n').replace('line 20\n', '')],
  ['lines added at the start and the end', numbered(10), `first\nsecond\n${numbered(10)}last\n`],
  ['no final newline on the old side', 'a\nb\nc', 'a\nb\nc\n'],
  ['no final newline on the new side', 'a\nb\nc\n', 'a\nB\nc'],
  ['no final newline on either side', 'a\nb\nold end', 'a\nb\nnew end'],
  ['CRLF lines', 'one\r\ntwo\r\nthree\r\n', 'one\r\nTWO\r\nthree\r\nfour\r\n'],
  ['CRLF turned into LF', 'one\r\ntwo\r\n', 'one\ntwo\n'],
  ['an empty old run', '', 'new\nlines\n'],
  ['an empty new run', 'old\nlines\n', ''],
  ['non-ASCII text and a byte order mark', '\ufeffgrüße\n日本\n', '\ufeffgrüße!\n日本\n'],
];

async function get(h: Harness, token: string, path: string) {
  const res = await h.request(path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  check('get', TEMPLATE, res.status, type, type.includes('json') ? JSON.parse(text) : text);
  return { status: res.status, type, text, json: () => JSON.parse(text) as Record<string, string> };
}

/** Applies `diff` to `old` with GNU patch, and the bytes it leaves. */
async function patched(dir: string, old: string, diff: string): Promise<Buffer> {
  const file = join(dir, 'run');
  await writeFile(file, old);
  await writeFile(join(dir, 'diff'), diff);
  await run('/usr/bin/patch', ['--quiet', '-u', file, join(dir, 'diff')]);
  return readFile(file);
}

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  describe(`comparing two runs in the API (${name})`, { skip }, () => {
    test('GNU patch makes the new run from the old one and the diff, byte for byte', async () => {
      const h = await harness({ store: await open() });
      const dir = await mkdtemp(join(tmpdir(), 'paddock-compare-'));
      try {
        const { device, credential } = await enrollDevice(h, ACCOUNTS.user.subject);
        const token = await apiToken(h, 'user', 'read');
        for (const [i, [what, before, after]] of PAIRS.entries()) {
          assert.equal((await upload(h, credential, `o${i}`, before)).status, 201);
          assert.equal((await upload(h, credential, `n${i}`, after)).status, 201);
          const res = await get(h, token, `/api/v1/runs/${device}/o${i}/compare?with=${device}/n${i}`);
          assert.equal(res.status, 200, what);
          assert.equal(res.type, 'text/plain; charset=utf-8');
          const uploaded = new Date(h.clock.now()).toISOString();
          assert.ok(res.text.startsWith(`--- ${device}/o${i}\t${uploaded}\n+++ ${device}/n${i}\t${uploaded}\n@@ -`));
          assert.ok((await patched(dir, before, res.text)).equals(Buffer.from(after)), what);
        }
        // What diff -u writes, exactly: the hunk header, 3 lines of context, the newline marker.
        const ends = await get(h, token, `/api/v1/runs/${device}/o3/compare?with=${device}/n3`);
        assert.equal(
          ends.text.split('\n').slice(2).join('\n'),
          '@@ -1,3 +1,3 @@\n a\n-b\n-c\n+B\n+c\n\\ No newline at end of file\n',
        );
        const start = await get(h, token, `/api/v1/runs/${device}/o7/compare?with=${device}/n7`);
        assert.equal(start.text.split('\n').slice(2).join('\n'), '@@ -0,0 +1,2 @@\n+new\n+lines\n');
        // The same run twice, or two runs with the same bytes: 200 and nothing.
        assert.equal((await upload(h, credential, 'copy', numbered(30))).status, 201);
        const same = await get(h, token, `/api/v1/runs/${device}/o0/compare?with=${device}/copy`);
        assert.deepEqual([same.status, same.type, same.text], [200, 'text/plain; charset=utf-8', '']);
      } finally {
        await rm(dir, { recursive: true, force: true });
        await h.close();
      }
    });

    test('out of scope is 404 as missing; a bad `with` 400; too large or binary 422 naming the run', async () => {
      const h = await harness({ store: await open() });
      try {
        const mine = await enrollDevice(h, ACCOUNTS.user.subject);
        const theirs = await enrollDevice(h, ACCOUNTS.other.subject);
        await upload(h, mine.credential, 'text', 'text\n');
        await upload(h, mine.credential, 'binary', Buffer.from([0xc3, 0x28, 0x0a]));
        await upload(h, mine.credential, 'big', 'y\n'.repeat(COMPARE_LIMIT / 2 + 1));
        await upload(h, theirs.credential, 'theirs', 'text\n');
        const token = await apiToken(h, 'user');
        const base = `/api/v1/runs/${mine.device}/text/compare`;
        const missing = await get(h, token, `${base}?with=${mine.device}/nope`);
        assert.equal(missing.status, 404);
        for (const path of [
          `${base}?with=${theirs.device}/theirs`,
          `/api/v1/runs/${theirs.device}/theirs/compare?with=${mine.device}/text`,
          `/api/v1/runs/${mine.device}/nope/compare?with=${mine.device}/text`,
        ]) {
          const res = await get(h, token, path);
          assert.deepEqual([res.status, res.text], [404, missing.text], path);
        }
        const admin = await get(h, await apiToken(h, 'admin'), `${base}?with=${theirs.device}/theirs`);
        assert.deepEqual([admin.status, admin.text], [200, '']);

        for (const query of ['', '?with=', `?with=${mine.device}`, '?with=/text', `?with=${mine.device}/`]) {
          const res = await get(h, token, `${base}${query}`);
          assert.equal(res.status, 400, query);
          assert.equal(res.json().field, 'with');
        }
        const twice = await get(h, token, `${base}?with=${mine.device}/text&with=${mine.device}/text`);
        assert.deepEqual([twice.status, twice.json().title], [400, 'repeated parameter']);
        const unknown = await get(h, token, `${base}?with=${mine.device}/text&context=5`);
        assert.deepEqual([unknown.status, unknown.json().field], [400, 'context']);

        const binary = await get(h, token, `${base}?with=${mine.device}/binary`);
        assert.equal(binary.status, 422);
        assert.equal(binary.type, 'application/problem+json');
        assert.equal(
          binary.json().detail,
          `${mine.device}/binary is not UTF-8 text: download the runs to compare them`,
        );
        const big = await get(h, token, `/api/v1/runs/${mine.device}/big/compare?with=${mine.device}/binary`);
        assert.equal(big.status, 422);
        assert.equal(
          big.json().detail,
          `${mine.device}/big is larger than the ${COMPARE_LIMIT} bytes that can be compared; ` +
            `${mine.device}/binary is not UTF-8 text: download the runs to compare them`,
        );
        assert.equal((await get(h, 'pdk_nope', `${base}?with=${mine.device}/text`)).status, 401);
      } finally {
        await h.close();
      }
    });
  });
}

await onBothStores(suite);
