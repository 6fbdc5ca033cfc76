/**
 * Words, as the search across runs reads them (docs/contract.md section 21): a word is a run of
 * letters, marks and digits, compared in lower case by JavaScript's own Unicode tables, so `Ü`
 * finds `ü` whatever either database's locale. Both stores index the same words, made here: the
 * distinct words of a run's text, joined by spaces (src/store/*\/runs.ts).
 */

import { Buffer, isAscii } from 'node:buffer';

/** A word: letters (with their combining marks) and digits. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Longer words are indexed and searched by their first this many characters (a GIN key has a size limit). */
export const MAX_WORD = 64;

/** The text the search reads is cut into slices this large, with a turn of the event loop between them. */
const SLICE = 1024 * 1024;

/** The index's form of a word. */
export function wordKey(word: string): string {
  const lower = word.toLowerCase();
  return lower.length > MAX_WORD ? lower.slice(0, MAX_WORD) : lower;
}

/** The words of `text`, in order, in their index form. */
export function wordsOf(text: string): string[] {
  return Array.from(text.matchAll(WORD), (m) => wordKey(m[0]));
}

/**
 * What the index holds for a run: its distinct words joined by spaces, or undefined when the body
 * is not valid UTF-8 (a binary run, not indexed). A large body is read a slice at a time, each cut
 * after a line feed or a space, with a turn of the event loop between slices, so a 16 MiB upload
 * does not hold other requests for the whole of its reading.
 */
export async function indexTextOf(body: Uint8Array): Promise<string | undefined> {
  if (body.byteLength <= SLICE && isAscii(body)) return asciiIndexText(body);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const words = new Set<string>();
  let carry = '';
  try {
    for (let at = 0; at < body.byteLength; at += SLICE) {
      const last = at + SLICE >= body.byteLength;
      const text = carry + decoder.decode(body.subarray(at, at + SLICE), { stream: !last });
      // A word may go on in the next slice: keep the text after the last separator for it.
      const cut = last ? text.length : lastSeparator(text);
      for (const w of wordsOf(text.slice(0, cut))) words.add(w);
      carry = text.slice(cut);
      if (!last) await new Promise((resolve) => setImmediate(resolve));
    }
    for (const w of wordsOf(carry + decoder.decode())) words.add(w);
  } catch {
    return undefined;
  }
  return [...words].join(' ');
}

/**
 * indexTextOf for a body of ASCII alone (most logs), the same words in the same order made about
 * twice as fast: a word is then a run of [0-9A-Za-z], and its lower case is ASCII's.
 */
function asciiIndexText(body: Uint8Array): string {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1').toLowerCase();
  const words = new Set<string>();
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      words.add(text.slice(start, Math.min(i, start + MAX_WORD)));
      start = -1;
    }
  }
  return [...words].join(' ');
}

/** Where the last word of `text` may still go on: after its last character that is not in a word. */
function lastSeparator(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 32 || code === 9 || code === 13) return i + 1;
  }
  return 0;
}

/** A search's text (`?text=`): the words every run found must hold, and the phrases it must hold as such. */
export interface TextQuery {
  /** As typed, trimmed. */
  source: string;
  /** Every word of the query, quoted or not, in index form, each once. */
  words: string[];
  /** Each quoted phrase of more than one word, as its words in order. */
  phrases: string[][];
}

/** The longest `text` or `find` (docs/contract.md section 21). */
export const MAX_QUERY = 200;

export type TextQueryResult = { ok: true; query: TextQuery } | { ok: false; message: string };

/**
 * A search's words and quoted phrases. Refused: empty, longer than MAX_QUERY characters, no word
 * at all (only punctuation), or an unbalanced quote.
 */
export function parseTextQuery(input: string): TextQueryResult {
  const source = input.trim();
  if (source.length === 0) return { ok: false, message: 'Enter one or more words to search for.' };
  if ([...source].length > MAX_QUERY) return { ok: false, message: `Search for at most ${MAX_QUERY} characters.` };
  const parts = source.split('"');
  if (parts.length % 2 === 0) return { ok: false, message: 'A quoted phrase needs its closing quote (").' };
  const words = new Set<string>();
  const phrases: string[][] = [];
  parts.forEach((part, i) => {
    const found = wordsOf(part);
    for (const w of found) words.add(w);
    if (i % 2 === 1 && found.length > 1) phrases.push(found);
  });
  if (words.size === 0) return { ok: false, message: 'Search for letters or digits, not only punctuation.' };
  return { ok: true, query: { source, words: [...words], phrases } };
}

/**
 * Whether a line holds the query's terms, and where: a quoted phrase's words one after the other
 * (separated only by what is not a word), a lone word as a whole word, in any case. The ranges
 * are [start, end) in the line's UTF-16 units, for `<mark>`.
 */
export function termMatcher(query: TextQuery): (line: string) => Array<[number, number]> {
  const inPhrase = new Set(query.phrases.flat());
  const patterns = [
    ...query.phrases.map((p) => p.map(escapeWord).join('[^\\p{L}\\p{M}\\p{N}]+')),
    ...query.words.filter((w) => !inPhrase.has(w)).map(escapeWord),
  ];
  const re = new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])(?:${patterns.join('|')})[\\p{L}\\p{M}\\p{N}]*`, 'giu');
  return (line) => {
    const ranges: Array<[number, number]> = [];
    for (const m of line.matchAll(re)) {
      // A longer word matches only when the query's word was cut at MAX_WORD characters.
      const word = m[0];
      if (!fitsCut(word, query)) continue;
      ranges.push([m.index, m.index + word.length]);
    }
    return ranges;
  };
}

/** Whether a match's last word is exactly a query word, or a longer word that index form cut to one. */
function fitsCut(match: string, query: TextQuery): boolean {
  const last = wordsOf(match).at(-1);
  if (last === undefined) return false;
  const tail = match.match(/[\p{L}\p{M}\p{N}]+$/u)?.[0] ?? '';
  return query.words.includes(last) && (tail.length <= MAX_WORD || last.length === MAX_WORD);
}

function escapeWord(word: string): string {
  return word.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
