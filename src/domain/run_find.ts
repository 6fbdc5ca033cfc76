/**
 * Finding in a run (docs/contract.md section 21): the lines that hold a text, case-insensitive for
 * every Unicode letter, at most 1,000 of them listed and the rest counted. One pass over the run's
 * chunks, decoded as UTF-8 (fatal: a run that is not is binary and has no lines to find in). The
 * expression runs over a whole decoded chunk at a time, not line by line, and each match is placed
 * on its line by counting line feeds; memory stays at about a chunk, however long a line is.
 */
import { TextDecoder } from 'node:util';
import type { StoredRun } from './runs.ts';

export const FIND_MAX = 200;
export const FOUND_MAX = 1000;
/** A listed line shows this many characters around its first match (a line may be megabytes long). */
const EXCERPT = 400;
const BEFORE_MATCH = 80;
/** A line without a line feed is searched this much at a time once it grows past it. */
const SEGMENT = 64 * 1024;
/**
 * What a segment keeps for the next: a match is at most FIND_MAX code points, each at most two
 * UTF-16 units (case folding maps a code point to one of the same plane), so one that begins
 * before this many units from the segment's end ends within it.
 */
const OVERLAP = 2 * FIND_MAX;

export interface FoundLine {
  line: number;
  /** The excerpt of the line shown, and whether the line goes on before or after it. */
  text: string;
  cutBefore: boolean;
  cutAfter: boolean;
}

export type FindResult =
  { kind: 'text'; lines: number; bytes: number; found: FoundLine[]; more: number } | { kind: 'binary' };

/** The expression that finds `text` anywhere, ignoring case (flags `giu`). */
export function findExpression(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'giu');
}

/** Whether a UTF-16 index falls between the two halves of a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff;
}

export async function findInRun(run: Pick<StoredRun, 'read'>, text: string): Promise<FindResult> {
  const expression = findExpression(text);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const found: FoundLine[] = [];
  let more = 0;
  let bytes = 0;
  /** Line feeds before the text held in `carry`: its line's number is one more. */
  let newlines = 0;
  /** The current line's text not yet searched, and whether part of the line before it was. */
  let carry = '';
  let carryIsCut = false;
  let lineFound = false;
  let endsWithNewline = true;

  function record(
    line: number,
    within: string,
    [from, to]: [number, number],
    at: number,
    [cutBefore, goesOn]: [boolean, boolean],
  ) {
    if (lineFound) return;
    lineFound = true;
    if (found.length >= FOUND_MAX) {
      more++;
      return;
    }
    let start = Math.max(from, at - BEFORE_MATCH);
    if (splitsPair(within, start)) start--;
    let end = Math.min(to, start + EXCERPT);
    if (splitsPair(within, end)) end++;
    found.push({
      line,
      text: within.slice(start, end),
      cutBefore: cutBefore || start > from,
      cutAfter: goesOn || end < to,
    });
  }

  /** Searches `work`, whose line feeds end lines; its first line continues `carry`'s line. */
  function searchLines(work: string) {
    expression.lastIndex = 0;
    let counted = 0;
    let lineStart = 0;
    let firstCut = carryIsCut;
    for (let m = expression.exec(work); m !== null; m = expression.exec(work)) {
      for (let nl = work.indexOf('\n', counted); nl !== -1 && nl < m.index; nl = work.indexOf('\n', counted)) {
        newlines++;
        counted = nl + 1;
        lineStart = counted;
        lineFound = false;
        firstCut = false;
      }
      const lineEnd = work.indexOf('\n', m.index);
      const to = lineEnd === -1 ? work.length : lineEnd;
      record(newlines + 1, work, [lineStart, to], m.index, [firstCut, false]);
      // One match is enough to list a line: go on from its end.
      if (lineEnd === -1) break;
      expression.lastIndex = lineEnd;
    }
    for (let nl = work.indexOf('\n', counted); nl !== -1; nl = work.indexOf('\n', counted)) {
      newlines++;
      counted = nl + 1;
      lineFound = false;
    }
  }

  /** Searches the first part of a line too long to hold, keeping the end that a match may still cross. */
  function searchSegment() {
    let cut = carry.length - OVERLAP;
    if (splitsPair(carry, cut)) cut--;
    if (!lineFound) {
      expression.lastIndex = 0;
      const m = expression.exec(carry);
      if (m !== null && m.index < cut) record(newlines + 1, carry, [0, carry.length], m.index, [carryIsCut, true]);
    }
    carry = carry.slice(cut);
    carryIsCut = true;
  }

  for await (const chunk of run.read()) {
    bytes += chunk.byteLength;
    if (chunk.byteLength > 0) endsWithNewline = chunk[chunk.byteLength - 1] === 10;
    const decoded = decode(decoder, chunk);
    if (decoded === undefined) return { kind: 'binary' };
    take(decoded);
  }
  const rest = decode(decoder);
  if (rest === undefined) return { kind: 'binary' };
  take(rest);
  if (carry.length > 0) {
    searchLines(carry);
  }
  return { kind: 'text', lines: newlines + (endsWithNewline || bytes === 0 ? 0 : 1), bytes, found, more };

  function take(decoded: string) {
    const buffered = carry + decoded;
    const last = buffered.lastIndexOf('\n');
    if (last === -1) {
      carry = buffered;
    } else {
      searchLines(buffered.slice(0, last + 1));
      carry = buffered.slice(last + 1);
      carryIsCut = false;
    }
    while (carry.length > SEGMENT) searchSegment();
  }
}

/** The chunk's text, or undefined when the bytes so far are not UTF-8 (the decoder is fatal). */
function decode(decoder: TextDecoder, chunk?: Uint8Array): string | undefined {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    return undefined;
  }
}
