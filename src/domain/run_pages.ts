/**
 * A long run read by pages (docs/contract.md section 21, "Reading a long run"): pages of at most
 * 1,000 lines and 256 KiB, cut greedily from the run's start, so a line always opens the same page
 * whichever page asked for it. One pass over the run's chunks counts its lines, decides whether it is
 * UTF-8 text and keeps only the bytes of the page asked for (at most 256 KiB) and the run's first
 * 4 KiB (the hex view of a binary run).
 *
 * A line longer than 256 KiB is split across pages, at a character boundary: it opens a page of its
 * own, fills it, and continues on the next (its second part, third part…), where the lines after it
 * may follow. Part 1 of a line is the page that holds its beginning; `?line=N&part=K` opens the
 * page that begins with its K-th part, so every byte of the run can be read in the browser.
 */
import type { StoredRun } from './runs.ts';
import { utf8Check } from './run_bytes.ts';

export const PAGE_LINES = 1000;
export const PAGE_BYTES = 256 * 1024;
/** A binary run shows this much of its beginning, as hex. */
export const HEAD_BYTES = 4096;

/** Where a page begins: at the start of `line` (part 1), or inside it, at the start of its part-th piece. */
export interface PageStart {
  line: number;
  part: number;
}

export interface TextPage {
  kind: 'text';
  /** The run's lines (a last line without a line feed counts) and bytes. */
  lines: number;
  bytes: number;
  /** The page shown: where it begins, its bytes, its place among the pages and whether it ends inside a line. */
  start: PageStart;
  body: Uint8Array;
  index: number;
  pages: number;
  endsInLine: boolean;
  previous: PageStart | undefined;
  next: PageStart | undefined;
  last: PageStart;
}

export interface BinaryRun {
  kind: 'binary';
  bytes: number;
  /** The run's first HEAD_BYTES bytes (fewer when it is smaller). */
  head: Uint8Array;
}

const isBefore = (a: PageStart, b: PageStart) => a.line < b.line || (a.line === b.line && a.part <= b.part);

/** The byte that begins a character (not a UTF-8 continuation byte 10xxxxxx). */
const CONTINUATION = 0x80;

/**
 * Reads the run once and answers the page that holds `want` (the last page when it is past the
 * end), or the run as binary when its bytes are not valid UTF-8.
 */
export async function readRunPage(
  run: Pick<StoredRun, 'read' | 'size'>,
  want: PageStart,
): Promise<TextPage | BinaryRun> {
  const utf8 = utf8Check();
  const head = new Uint8Array(Math.min(HEAD_BYTES, run.size));
  const kept = new Uint8Array(Math.min(PAGE_BYTES, run.size));
  let bytes = 0;
  let newlines = 0;
  let lastByte = 10;

  // The page being cut.
  let start: PageStart = { line: 1, part: 1 };
  let index = 0;
  let pageBytes = 0;
  let pageLines = 0;
  // The line being read: its number, which part of it this page holds, its bytes on this page.
  let line = 0;
  let part = 1;
  let lineOnPage = 0;
  let atLineStart = true;
  // The page shown: the last one to begin at or before `want`, kept in `kept[0, keptBytes)` while it is cut.
  let keeping = true;
  let keptBytes = 0;
  let shown = { start, index, endsInLine: false };
  let previous: PageStart | undefined;
  let next: PageStart | undefined;

  /** Closes the page, moving its last `carry` bytes (the line that does not fit, or a cut character) to the next. */
  function turn(to: PageStart, carry: number, endsInLine: boolean) {
    if (keeping) shown.endsInLine = endsInLine;
    index++;
    if (isBefore(to, want)) {
      previous = shown.start;
      shown = { start: to, index, endsInLine: false };
      kept.copyWithin(0, keptBytes - carry, keptBytes);
      keptBytes = carry;
    } else if (keeping) {
      keeping = false;
      keptBytes -= carry;
      next = to;
    }
    start = to;
    pageBytes = carry;
    // The line being read is on the new page, whether it continues there or begins there.
    pageLines = 1;
  }

  /**
   * Copies the page's bytes of the current chunk up to `to` into `kept`: once per page and chunk, not
   * per line (a copy per line was most of the pass's time on a run of short lines).
   */
  let keptFrom = 0;
  function keep(chunk: Uint8Array, to: number) {
    if (keeping && to > keptFrom) {
      kept.set(chunk.subarray(keptFrom, to), keptBytes);
      keptBytes += to - keptFrom;
    }
    keptFrom = to;
  }

  let tail: Uint8Array = new Uint8Array(0);
  for await (const chunk of run.read()) {
    if (bytes < head.byteLength) head.set(chunk.subarray(0, head.byteLength - bytes), bytes);
    if (!utf8.push(chunk)) return binary(run, head.subarray(0, Math.min(head.byteLength, bytes + chunk.byteLength)));
    const byteAt = (i: number) => (i >= 0 ? (chunk[i] ?? 0) : (tail[tail.byteLength + i] ?? 0));
    let p = 0;
    while (p < chunk.byteLength) {
      if (atLineStart) {
        atLineStart = false;
        line++;
        part = 1;
        lineOnPage = 0;
        if (pageLines === PAGE_LINES) {
          keep(chunk, p);
          turn({ line, part }, 0, false);
        } else pageLines++;
      }
      const newline = chunk.indexOf(10, p);
      const end = newline === -1 ? chunk.byteLength : newline + 1;
      const room = PAGE_BYTES - pageBytes;
      if (end - p <= room) {
        pageBytes += end - p;
        lineOnPage += end - p;
        if (newline !== -1) {
          newlines++;
          atLineStart = true;
        }
        p = end;
      } else if (pageBytes > lineOnPage) {
        // The line does not fit after the page's other lines: it opens the next page.
        keep(chunk, p);
        turn({ line, part }, lineOnPage, false);
      } else {
        // The line alone is longer than a page: cut it before the character that crosses the bound.
        let cut = p + room;
        if ((byteAt(cut) & 0xc0) === CONTINUATION) {
          for (let back = 1; back <= 3; back++) {
            const byte = byteAt(cut - back);
            if ((byte & 0xc0) !== CONTINUATION) {
              if (byte >= 0xc0) cut -= back;
              break;
            }
          }
        }
        keep(chunk, Math.max(p, cut));
        lineOnPage = Math.max(0, p - cut);
        part++;
        turn({ line, part }, lineOnPage, true);
        p = Math.max(p, cut);
      }
    }
    keep(chunk, chunk.byteLength);
    keptFrom = 0;
    bytes += chunk.byteLength;
    lastByte = chunk[chunk.byteLength - 1] ?? lastByte;
    tail = chunk.subarray(Math.max(0, chunk.byteLength - 3));
  }
  if (!utf8.end()) return binary(run, head.subarray(0, Math.min(head.byteLength, bytes)));
  return {
    kind: 'text',
    lines: newlines + (lastByte === 10 ? 0 : 1),
    bytes,
    start: shown.start,
    body: kept.subarray(0, keptBytes),
    index: shown.index,
    pages: index + 1,
    endsInLine: shown.endsInLine,
    previous,
    next,
    last: start,
  };
}

function binary(run: Pick<StoredRun, 'size'>, head: Uint8Array): BinaryRun {
  return { kind: 'binary', bytes: run.size, head };
}
