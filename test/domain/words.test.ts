/**
 * The index's words (src/domain/words.ts): an ASCII body goes a faster way (asciiIndexText) that
 * must make exactly the words, in the same order, as the general one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexTextOf, MAX_WORD, wordsOf } from '../../src/domain/words.ts';

/** The general way: every distinct word of the text, in order of first appearance. */
const reference = (text: string) => [...new Set(wordsOf(text))].join(' ');

/** Seeded (mulberry32), so a failure names its case. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

test('an ASCII body is indexed exactly as the general way would: every byte, case, long words', async () => {
  const alphabet = 'aZ09_-.= \t\r\n"\'\x00\x7f`~{}|AbCdEfQqWw';
  for (let seed = 1; seed <= 300; seed++) {
    const next = random(seed);
    const length = Math.floor(next() * 400);
    let text = '';
    for (let i = 0; i < length; i++) {
      // Now and then a word longer than the index keeps (MAX_WORD), in mixed case.
      text +=
        next() < 0.01
          ? 'LongWord'.repeat(1 + Math.floor(next() * 20))
          : (alphabet[Math.floor(next() * alphabet.length)] ?? ' ');
    }
    assert.equal(
      await indexTextOf(Buffer.from(text, 'latin1')),
      reference(text),
      `seed ${seed}: ${JSON.stringify(text)}`,
    );
  }
  // Every ASCII code point, alone between words.
  for (let code = 0; code < 128; code++) {
    const text = `Ab${String.fromCharCode(code)}cD ${String.fromCharCode(code)}`;
    assert.equal(await indexTextOf(Buffer.from(text, 'latin1')), reference(text), `code ${code}`);
  }
});

test('a word is cut at MAX_WORD characters and kept once', async () => {
  const long = 'X'.repeat(MAX_WORD + 10);
  assert.equal(await indexTextOf(Buffer.from(`${long} ${long.toLowerCase()} y`)), `${'x'.repeat(MAX_WORD)} y`);
});

test('a body with other characters goes the general way: Unicode letters and marks, in lower case', async () => {
  const text = 'Grüße ÜBER Straße — ΟΔΟΣ.και 東京 x';
  assert.equal(await indexTextOf(Buffer.from(text)), reference(text));
  assert.deepEqual((await indexTextOf(Buffer.from(text)))?.split(' ').slice(0, 2), ['grüße', 'über']);
});

test('a body that is not valid UTF-8 has no words (a binary run)', async () => {
  assert.equal(await indexTextOf(Uint8Array.of(0x61, 0xff, 0x62)), undefined);
  assert.equal(await indexTextOf(Uint8Array.of()), '');
});
