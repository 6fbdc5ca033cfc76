// A run's first matching line (docs/contract.md section 21), read a chunk at a time: lines and
// characters split across chunks, CRLF, a phrase that only a later line holds, a run that is not
// valid UTF-8, and a long line cut around its match without splitting a character.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AROUND, firstMatchingLine } from '../../src/domain/run_match.ts';
import { parseTextQuery, type TextQuery } from '../../src/domain/words.ts';

/** A run whose bytes arrive in chunks of `size` bytes. */
function run(body: string | Uint8Array, size: number) {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return {
    async *read() {
      for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
    },
  };
}

function query(text: string): TextQuery {
  const read = parseTextQuery(text);
  assert.ok(read.ok, text);
  return read.query;
}

test('the first line holding a term, whatever the chunks: its number, text and matches', async () => {
  const body = 'one\ntwo\r\nthe Grüße here, grüße there\nlast grüße\n';
  for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
    assert.deepEqual(
      await firstMatchingLine(run(body, size), query('GRÜSSE grüße')),
      {
        line: 3,
        text: 'the Grüße here, grüße there',
        ranges: [
          [4, 9],
          [16, 21],
        ],
      },
      `chunks of ${size}`,
    );
  }
  assert.deepEqual(await firstMatchingLine(run('no end of line: word', 4), query('word')), {
    line: 1,
    text: 'no end of line: word',
    ranges: [[16, 20]],
  });
  assert.equal(await firstMatchingLine(run('nothing\n', 3), query('word')), undefined);
  assert.equal(await firstMatchingLine(run('', 3), query('word')), undefined);
});

test('a quoted phrase must be on a line as such: the first line may hold a lone word, the phrase later', async () => {
  const body = 'error at start\nfull, then disk\ndisk  full at last\n';
  assert.deepEqual(await firstMatchingLine(run(body, 5), query('error "disk full"')), {
    line: 1,
    text: 'error at start',
    ranges: [[0, 5]],
  });
  assert.equal((await firstMatchingLine(run(body, 5), query('"disk full"')))?.line, 3);
  assert.equal(await firstMatchingLine(run(body, 5), query('error "full disk"')), undefined, 'not in that order');
  assert.equal(await firstMatchingLine(run('disk\nfull\n', 5), query('"disk full"')), undefined, 'not across lines');
});

test('a run that is not valid UTF-8 has no matching line', async () => {
  const bytes = new Uint8Array([...new TextEncoder().encode('word\n'), 0xff, 0x0a]);
  assert.equal(await firstMatchingLine(run(bytes, 2), query('nothing')), undefined);
});

test('a long line is cut AROUND characters each side of its first match, never inside a character', async () => {
  const body = `${'😀'.repeat(300)} needle ${'x'.repeat(500)} needle\n`;
  const found = await firstMatchingLine(run(body, 1000), query('needle'));
  assert.ok(found);
  assert.ok(found.text.startsWith('…'));
  assert.ok(found.text.endsWith('…'));
  assert.equal(found.text.isWellFormed(), true);
  const [start, end] = found.ranges[0] ?? [0, 0];
  assert.equal(found.text.slice(start, end), 'needle');
  assert.ok(start <= AROUND + 2 && found.text.length - end <= AROUND + 1);
  assert.equal(found.ranges.length, 1, 'the second match is beyond what is kept');
});
