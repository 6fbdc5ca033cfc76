/**
 * How PostgreSQL's search chooses its statement from the table's statistics
 * (src/store/postgres/run_words.ts): the rows given here are what pg_stats answers; the plans
 * themselves are tested on a real database in run_search_plans.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pgRunCandidates } from '../../src/store/postgres/run_words.ts';

const CAP = 10_000;
/** 1,000,000 runs; "info" in all of them, "warn" in 30 %, the least common element in 1.5 %. */
const stats = { words: ['info', 'warn', 'span'], freqs: [1, 0.3, 0.015, 0.015, 1, 0], runs: 1_000_000 };

async function choice(words: string[], row: object | undefined) {
  const candidates = pgRunCandidates(async () => row as never);
  const chosen = await candidates(words, 2_000_000, 0, CAP);
  return chosen.sql === chosen.examined.sql ? 'index' : 'walk';
}

test('a word held by more runs than the cap, by the statistics, walks the newest runs', async () => {
  assert.equal(await choice(['info'], stats), 'walk');
  assert.equal(await choice(['info', 'warn'], stats), 'walk');
});

test('a word among the common ones but held by fewer runs than the cap goes by the index', async () => {
  assert.equal(await choice(['info'], { ...stats, runs: 5_000 }), 'index');
});

test('a word not among the common ones goes by the index, even when the least common share would pass the cap', async () => {
  // 1.5 % of 1,000,000 is 15,000 runs: estimating the needle so would walk, and miss its ten runs.
  assert.equal(await choice(['quokkaneedle'], stats), 'index');
  assert.equal(await choice(['info', 'quokkaneedle'], stats), 'index', 'the rarest word decides');
});

test('without statistics (a table never analysed) the index is read', async () => {
  assert.equal(await choice(['info'], undefined), 'index');
  assert.equal(await choice(['info'], { words: null, freqs: null, runs: 0 }), 'index');
});
