/**
 * The search's candidates on SQLite (docs/contract.md section 21): the FTS5 table run_words
 * (migration run-words) answers every word at once, newest first by its rowid (the run's seq),
 * reading its doclists from the newest end and stopping at the cap.
 */
import type { Sql } from '../sql.ts';

const candidates =
  'SELECT rowid AS seq FROM run_words WHERE run_words MATCH ? AND rowid < ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?';

/** Each word as an FTS5 string: a word holds no `"` (src/domain/words.ts), nor anything else FTS5 reads. */
export const sqliteRunCandidates: Sql['runCandidates'] = async (words, below, atLeast, cap) => {
  const params = [words.map((w) => `"${w}"`).join(' '), below, atLeast, cap];
  return { sql: candidates, params, examined: { sql: candidates, params } };
};

/** Replaces what the index holds for the run, in one transaction (Sql.atomically), while it exists. */
export const sqliteIndexWords: Sql['indexWords'] = (seq, words) => [
  ['DELETE FROM run_words WHERE rowid = ?', [seq]],
  [
    "INSERT INTO run_words (rowid, words) SELECT ?, ? WHERE ? <> '' AND EXISTS (SELECT 1 FROM runs WHERE seq = ?)",
    [seq, words, words, seq],
  ],
];
