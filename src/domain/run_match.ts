/**
 * A run's first line that matches a search (docs/contract.md section 21), for the list of what a
 * search found. The index finds runs holding every word; a quoted phrase must also appear as such,
 * which only the text can tell, so a run whose lines lack one has no match (and is not listed).
 * The run is read a chunk at a time and the reading stops as soon as both are known.
 */
import type { StoredRun } from './runs.ts';
import { termMatcher, type TextQuery } from './words.ts';

/** The first matching line: its number (from 1), its text (trimmed around the match) and the matches in it. */
export interface LineMatch {
  line: number;
  text: string;
  /** [start, end) of each match in `text`, in UTF-16 units, for `<mark>`. */
  ranges: Array<[number, number]>;
}

/** How much of a long line is shown on each side of its first match. */
export const AROUND = 200;

const ELLIPSIS = '…';

/**
 * The first line of the run that holds a term of the query, when every quoted phrase of the query
 * appears in one of its lines; undefined otherwise, or when the run is not valid UTF-8. A phrase
 * is matched within a line: the run view shows lines, and a match is shown as one.
 */
export async function firstMatchingLine(
  run: Pick<StoredRun, 'read'>,
  query: TextQuery,
): Promise<LineMatch | undefined> {
  const search = lineSearch(query);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let carry = '';
  try {
    for await (const chunk of run.read()) {
      const text = carry + decoder.decode(chunk, { stream: true });
      // The text after the last line feed may go on in the next chunk.
      const cut = text.lastIndexOf('\n') + 1;
      carry = text.slice(cut);
      if (cut > 0 && search.block(text.slice(0, cut - 1))) break;
    }
    if (!search.done()) search.block(carry + decoder.decode());
  } catch {
    return undefined;
  }
  return search.result();
}

/** The search's state over the lines read so far, in order. */
function lineSearch(query: TextQuery) {
  const any = termMatcher(query);
  // Each phrase alone, to know which are still to be seen once the first line is found.
  const phrases = query.phrases.map((p) => termMatcher({ source: '', words: p, phrases: [p] }));
  const missing = new Set(phrases.keys());
  let lines = 0;
  let first: LineMatch | undefined;

  const holds = (i: number, text: string) => (phrases[i]?.(text).length ?? 0) > 0;
  const done = () => first !== undefined && missing.size === 0;
  /** Whether a block of lines may hold what is still looked for: one regular expression over it all. */
  const worthReading = (block: string) =>
    first === undefined ? any(block).length > 0 : [...missing].some((i) => holds(i, block));

  return {
    done,
    /**
     * Reads a block of whole lines (without the last line feed); true once the search is done. A
     * line's match is also a match in its block (line feeds are not in words), so a block without
     * any is skipped whole; a block match may span lines, so each line is then tried alone.
     */
    block(block: string): boolean {
      if (!worthReading(block)) {
        lines += countLines(block);
        return false;
      }
      for (const line of block.split('\n')) {
        lines++;
        if (first === undefined) {
          const ranges = any(line);
          if (ranges.length > 0) first = around(withoutCr(line), lines, ranges);
        }
        for (const i of missing) if (holds(i, line)) missing.delete(i);
        if (done()) return true;
      }
      return false;
    },
    result: () => (done() ? first : undefined),
  };
}

function countLines(block: string): number {
  let n = 1;
  for (let at = block.indexOf('\n'); at !== -1; at = block.indexOf('\n', at + 1)) n++;
  return n;
}

/** A line as shown: without the carriage return of a CRLF line end. */
function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/**
 * The line, or for a long one the AROUND characters on each side of its first match with an
 * ellipsis where it was cut, and the matches that fall within what is kept.
 */
export function around(line: string, number: number, ranges: Array<[number, number]>): LineMatch {
  const [firstStart, firstEnd] = ranges[0] ?? [0, 0];
  const start = unsplit(line, Math.max(0, firstStart - AROUND));
  const end = unsplit(line, Math.min(line.length, firstEnd + AROUND));
  const head = start > 0 ? ELLIPSIS : '';
  const text = head + line.slice(start, end) + (end < line.length ? ELLIPSIS : '');
  const shift = head.length - start;
  const kept = ranges
    .filter(([s, e]) => s >= start && e <= end)
    .map(([s, e]): [number, number] => [s + shift, e + shift]);
  return { line: number, text, ranges: kept };
}

/** The index moved back off the middle of a surrogate pair, so a cut never splits a character. */
function unsplit(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}
