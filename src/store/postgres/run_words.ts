/**
 * The search's candidates on PostgreSQL (docs/contract.md section 21). The GIN index runs_words
 * finds the runs holding every word, but in no order: for a word held by most runs, the newest
 * page would first fetch them all. So the statement is chosen by the table's statistics (pg_stats'
 * most common elements, read at most once a minute): when every word of the query is among them
 * and held by more than `cap` runs, a walk down the newest `cap` runs checking each one's words,
 * which for so common a word fills a page within a few rows; otherwise the index, its matches
 * fetched and sorted. A word not among the common elements goes by the index: it is held by fewer
 * runs than the least common of them (at the default statistics target, a thousand elements of a
 * tenth of a per cent and up), and a walk would read the newest `cap` runs and most likely find none
 * of its runs (at 1,000,000 runs, estimating such a word at the least common share sent a word held
 * by ten runs to the walk, which found nothing).
 */
import type { Row, Sql } from '../sql.ts';

/**
 * Only the GIN index can answer it: the seq range and the order are written as expressions no
 * index answers, so that no plan (a generic one included, which knows nothing of the word) walks
 * the runs instead, which for a rare word would read them all.
 */
const byIndex = `SELECT seq FROM runs WHERE words @> string_to_array(?::text, ' ') AND seq + 0 < ? AND seq + 0 >= ?
  ORDER BY seq + 0 DESC LIMIT ?`;
const newest = 'SELECT seq FROM runs WHERE seq < ? AND seq >= ? ORDER BY seq DESC LIMIT ?';
const byWalk = `SELECT seq FROM (SELECT seq, words FROM runs WHERE seq < ? AND seq >= ? ORDER BY seq DESC LIMIT ?) AS w
  WHERE words @> string_to_array(?::text, ' ') ORDER BY seq DESC`;
/** The common words' share of runs, and the runs counted. */
const wordStats = `SELECT s.most_common_elems::text::text[] AS words, s.most_common_elem_freqs AS freqs,
    (SELECT reltuples FROM pg_class WHERE oid = 'runs'::regclass) AS runs
  FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = 'runs' AND s.attname = 'words'`;

const STATS_MS = 60_000;

interface WordStats {
  /** The common words' share of runs. */
  share: Map<string, number>;
  runs: number;
}

export function pgRunCandidates(
  get: (sql: string) => Promise<Row | undefined>,
  now: () => number = Date.now,
): Sql['runCandidates'] {
  let stats: { at: number; value: Promise<WordStats | undefined> } | undefined;
  function current(): Promise<WordStats | undefined> {
    if (stats === undefined || now() - stats.at >= STATS_MS)
      stats = { at: now(), value: get(wordStats).then(read, () => undefined) };
    return stats.value;
  }
  return async (words, below, atLeast, cap) => {
    const s = await current();
    // A word without statistics, or not among the common ones, counts as rare: the index.
    const held = (w: string) => (s === undefined ? 0 : (s.share.get(w) ?? 0) * s.runs);
    const rarest = Math.min(...words.map(held));
    const joined = words.join(' ');
    if (rarest <= cap) {
      const params = [joined, below, atLeast, cap];
      return { sql: byIndex, params, examined: { sql: byIndex, params } };
    }
    return {
      sql: byWalk,
      params: [below, atLeast, cap, joined],
      examined: { sql: newest, params: [below, atLeast, cap] },
    };
  };
}

function read(row: Row | undefined): WordStats | undefined {
  const runs = Number(row?.runs);
  if (!row || !Array.isArray(row.words) || !Array.isArray(row.freqs) || !(runs > 0)) return undefined;
  const words = row.words as string[];
  const freqs = (row.freqs as unknown[]).map(Number);
  const share = new Map(words.map((w, i) => [w, freqs[i] ?? 0]));
  return { share, runs };
}

/** The run's words, in its row (a run gone has none to write). */
export const pgIndexWords: Sql['indexWords'] = (seq, words) => [
  ["UPDATE runs SET words = string_to_array(?::text, ' ') WHERE seq = ?", [words, seq]],
];
