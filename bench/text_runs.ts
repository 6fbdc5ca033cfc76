/**
 * Log-like text runs for bench/run_text.ts (issue 44): lines with a timestamp, a level, a
 * component, words of a vocabulary of a few thousand (common ones far more often than rare ones,
 * as in real logs), numbers, hex ids; seeded, so every run of the bench writes the same text.
 */
import { createHash } from 'node:crypto';
import { wordsOf } from '../src/domain/words.ts';

/** A small seeded generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const CONSONANTS = 'bcdfghklmnprstvz';
const VOWELS = 'aeiou';

/** 3,000 distinct made-up words of two to four syllables (never a needle: those hold a q or a w). */
export const VOCABULARY: readonly string[] = (() => {
  const next = random(44);
  const words = new Set<string>();
  while (words.size < 3_000) {
    const syllables = 2 + Math.floor(next() * 3);
    let w = '';
    for (let s = 0; s < syllables; s++)
      w += (CONSONANTS[Math.floor(next() * CONSONANTS.length)] ?? 'b') + (VOWELS[Math.floor(next() * 5)] ?? 'a');
    words.add(w);
  }
  return [...words];
})();
const COMPONENTS = VOCABULARY.slice(0, 40).map((w, i) => `${w}.${VOCABULARY[40 + i] ?? 'x'}`);

const hex = (next: () => number, digits: number) => {
  let s = '';
  for (let i = 0; i < digits; i++) s += '0123456789abcdef'[Math.floor(next() * 16)];
  return s;
};

/** A vocabulary word, the common ones far more often (index ~ 3000 r³). */
const word = (next: () => number) => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 3)] ?? 'a';

function level(next: () => number): string {
  const r = next();
  return r < 0.8 ? 'INFO' : r < 0.9 ? 'DEBUG' : r < 0.97 ? 'WARN' : 'ERROR';
}

/** One log line at `at` (ms): about 85 bytes. */
export function logLine(next: () => number, at: number): string {
  const words = Array.from({ length: 4 + Math.floor(next() * 5) }, () => word(next)).join(' ');
  const extra = next() < 0.3 ? ` span=${hex(next, 8)}` : '';
  return `${new Date(at).toISOString()} ${level(next)} ${COMPONENTS[Math.floor(next() * COMPONENTS.length)]} ${words} value=${Math.floor(next() * 1000)}${extra}\n`;
}

/**
 * A run of about `bytes` bytes (whole lines): its first line names the run's trace id (16 hex
 * digits, its own), the others as logLine; `plant` adds a line holding that word (a needle).
 */
export function runText(seed: number, at: number, bytes: number, plant?: string): string {
  const next = random(seed);
  let text = `${new Date(at).toISOString()} INFO ${COMPONENTS[0]} run started trace=${hex(next, 16)}\n`;
  let t = at;
  while (text.length < bytes - 60) {
    t += Math.floor(next() * 2000);
    text += logLine(next, t);
  }
  if (plant !== undefined) text += `${new Date(t).toISOString()} WARN ${COMPONENTS[1]} found ${plant} here\n`;
  return text;
}

/** The log lines of a pooled run body (no first line): about `bytes` bytes, whole lines. */
export function poolText(seed: number, bytes: number): string {
  const next = random(seed);
  let text = '';
  let t = Date.UTC(2026, 9, 1) + seed * 7_919;
  while (text.length < bytes - 60) {
    t += Math.floor(next() * 2000);
    text += logLine(next, t);
  }
  return text;
}

/**
 * The first line of a dataset run: its time and a trace id of its own (the first 16 hex digits of
 * the MD5 of its number), so every run holds words no other does. bench/run_text.ts writes the
 * same line in SQL on PostgreSQL (firstLineSql); `at` is a whole second.
 */
export function firstLine(i: number, at: number): string {
  const trace = createHash('md5').update(String(i)).digest('hex').slice(0, 16);
  return `${new Date(at).toISOString()} INFO ${COMPONENTS[0]} run started trace=${trace}\n`;
}

/** firstLine in PostgreSQL's SQL, of the run number `i` and its time `at` (ms, a whole second). */
export const firstLineSql = (i: string, at: string) =>
  `to_char(to_timestamp((${at}) / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ' INFO ${COMPONENTS[0]} run started trace=' || substr(md5((${i})::text), 1, 16) || E'\\n'`;

/** A line holding a needle word, appended to the runs that hold it. */
export const needleLine = (word: string) => `2026-10-01T00:00:00.000Z WARN ${COMPONENTS[1]} found ${word} here\n`;

/**
 * What the index holds for a text: its distinct words joined by spaces, in order of first
 * appearance. The same as indexTextOf for a body under 1 MiB (one slice); checked against it.
 */
export function wordsText(text: string): string {
  return [...new Set(wordsOf(text))].join(' ');
}

/** `lines` log lines of a run (a long run to page through). */
export function linesText(seed: number, at: number, lines: number): string {
  const next = random(seed);
  let text = '';
  for (let i = 0; i < lines; i++) text += logLine(next, at + i * 100);
  return text;
}

/**
 * Two texts of at most `bytes` bytes, the second with `share` of the first's lines replaced by
 * other lines: the compare's pair. Returns both and how many lines were changed.
 */
export function changedPair(seed: number, at: number, bytes: number, share: number): [string, string, number] {
  const next = random(seed);
  const lines: string[] = [];
  let size = 0;
  for (let t = at; ; t += 100) {
    const line = logLine(next, t);
    // Room for a replaced line longer than the one it replaces.
    if (size + line.length > bytes - 64 * 1024) break;
    lines.push(line);
    size += line.length;
  }
  const changed = Math.round(lines.length * share);
  const other = lines.slice();
  const step = lines.length / changed;
  for (let k = 0; k < changed; k++) {
    const i = Math.floor(k * step + step / 2);
    other[i] = `${new Date(at + i * 100).toISOString()} ERROR ${COMPONENTS[2]} changed line ${k} ${word(next)}\n`;
  }
  return [lines.join(''), other.join(''), changed];
}

/** Exactly `bytes` bytes of log lines whose last line alone holds `marker`. */
export function largeText(seed: number, bytes: number, marker: string): string {
  const next = random(seed);
  const parts: string[] = [];
  let size = 0;
  let t = Date.UTC(2026, 10, 1);
  const last = (pad: number) => `${new Date(t).toISOString()} INFO ${COMPONENTS[3]} done${' '.repeat(pad)} ${marker}\n`;
  for (;;) {
    const line = logLine(next, (t += 10));
    if (size + line.length + last(1).length > bytes) break;
    parts.push(line);
    size += line.length;
  }
  parts.push(last(bytes - size - last(0).length));
  return parts.join('');
}
