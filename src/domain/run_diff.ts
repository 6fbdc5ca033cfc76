/**
 * A line diff of two text runs (docs/contract.md section 21), unified as `diff -u` writes it so that
 * GNU `patch` reproduces the new run's bytes exactly: a line keeps its line feed, and a carriage
 * return before it is part of the line's content. Pure functions; the doors render the result.
 */
import jestDiffSequences from '@jest/diff-sequences';

/**
 * Jest's Myers diff (linear space). Its ES module's default export is the function, while
 * TypeScript reads the CommonJS typings, where the function is the module's `default`.
 */
const diffSequence = jestDiffSequences as unknown as typeof jestDiffSequences.default;

/** The largest run that is compared (docs/contract.md section 21); a larger one gets a page that says so. */
export const COMPARE_LIMIT = 2 * 1024 * 1024;

/** Unchanged lines shown around each change, as `diff -u` does by default. */
export const CONTEXT_LINES = 3;

/**
 * Comparisons the diff may make before it settles for a coarser answer: about 200 ms of one core,
 * so that two 2 MiB runs built to be costly (Myers is O((N+M)·D)) hold the event loop no longer.
 */
export const COMPARISON_BUDGET = 15_000_000;

export interface DiffLine {
  kind: 'context' | 'removed' | 'added';
  /** The line as stored, with its line feed when it has one (a CR before it included). */
  text: string;
  /** 1-based line numbers on each side; a removed line has no new one, an added line no old one. */
  oldNo?: number | undefined;
  newNo?: number | undefined;
}

export interface Hunk {
  /** The hunk's first line on each side (1-based) and how many lines of each side it holds. */
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  /** Its changes, in order; the lines between them, and `context` around, are unchanged. */
  changes: Change[];
}

/** A change: old lines [a0, a1) replaced by new lines [b0, b1) (0-based), one of them possibly empty. */
export interface Change {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

export interface RunDiff {
  oldLines: readonly string[];
  newLines: readonly string[];
  hunks: Hunk[];
  removed: number;
  added: number;
  /**
   * The runs differ too much to find the fewest changes within COMPARISON_BUDGET: everything
   * between their common first and last lines is shown removed whole and added whole (still exact
   * for `patch`, only longer).
   */
  coarse: boolean;
}

/** The text as lines, each with its line feed; the last has none when the text does not end with one. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
    lines.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** A stretch of equal lines: from `a` on the old side, `b` on the new, `n` lines long. */
type Common = readonly [a: number, b: number, n: number];

const TOO_COSTLY = Symbol('too costly');

/**
 * The common stretches of the two line lists, in order. Lines are numbered (equal text, equal
 * number), the common head and tail are taken off, and lines that the other side's middle does
 * not hold at all are left out of the search: they can never be common, and two unrelated runs
 * then cost nothing (GNU diff discards them too).
 */
function commonStretches(a: readonly string[], b: readonly string[]): { common: Common[]; coarse: boolean } {
  const numbers = new Map<string, number>();
  const number = (line: string) => {
    let n = numbers.get(line);
    if (n === undefined) numbers.set(line, (n = numbers.size));
    return n;
  };
  const na = new Int32Array(a.length);
  for (let i = 0; i < a.length; i++) na[i] = number(a[i] ?? '');
  const nb = new Int32Array(b.length);
  for (let j = 0; j < b.length; j++) nb[j] = number(b[j] ?? '');
  let head = 0;
  while (head < na.length && head < nb.length && na[head] === nb[head]) head++;
  let tail = 0;
  while (tail < na.length - head && tail < nb.length - head && na[na.length - 1 - tail] === nb[nb.length - 1 - tail])
    tail++;
  const inA = new Uint8Array(numbers.size);
  const inB = new Uint8Array(numbers.size);
  for (let i = head; i < na.length - tail; i++) inA[na[i] ?? 0] = 1;
  for (let j = head; j < nb.length - tail; j++) inB[nb[j] ?? 0] = 1;
  const ka: number[] = [];
  const kb: number[] = [];
  for (let i = head; i < na.length - tail; i++) if (inB[na[i] ?? 0]) ka.push(i);
  for (let j = head; j < nb.length - tail; j++) if (inA[nb[j] ?? 0]) kb.push(j);

  const middle: Array<[number, number, number]> = [];
  let coarse = false;
  let comparisons = 0;
  try {
    diffSequence(
      ka.length,
      kb.length,
      (i, j) => {
        if (++comparisons > COMPARISON_BUDGET) throw TOO_COSTLY;
        return na[ka[i] ?? 0] === nb[kb[j] ?? 0];
      },
      (n, ai, bi) => {
        for (let k = 0; k < n; k++) {
          const i = ka[ai + k] ?? 0;
          const j = kb[bi + k] ?? 0;
          const last = middle.at(-1);
          if (last && last[0] + last[2] === i && last[1] + last[2] === j) last[2]++;
          else middle.push([i, j, 1]);
        }
      },
    );
  } catch (err) {
    if (err !== TOO_COSTLY) throw err;
    middle.length = 0;
    coarse = true;
  }
  const common: Common[] = [];
  if (head > 0) common.push([0, 0, head]);
  common.push(...middle);
  if (tail > 0) common.push([na.length - tail, nb.length - tail, tail]);
  return { common, coarse };
}

function changes(common: readonly Common[], aLength: number, bLength: number): Change[] {
  const found: Change[] = [];
  let a = 0;
  let b = 0;
  for (const [ca, cb, n] of [...common, [aLength, bLength, 0] as const]) {
    if (ca > a || cb > b) found.push({ a0: a, a1: ca, b0: b, b1: cb });
    a = ca + n;
    b = cb + n;
  }
  return found;
}

/** The diff of two texts: hunks with `context` unchanged lines around each change, as `diff -u` groups them. */
export function diffTexts(oldText: string, newText: string, context = CONTEXT_LINES): RunDiff {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const { common, coarse } = commonStretches(a, b);
  const all = changes(common, a.length, b.length);
  const hunks: Hunk[] = [];
  let removed = 0;
  let added = 0;
  for (let first = 0; first < all.length;) {
    // Changes closer than twice the context share a hunk (their contexts would meet).
    let last = first;
    while (last + 1 < all.length && (all[last + 1]?.a0 ?? 0) - (all[last]?.a1 ?? 0) <= 2 * context) last++;
    const group = all.slice(first, last + 1);
    const f = group[0] as Change;
    const l = group.at(-1) as Change;
    // Around the changes the lines are equal, so both sides move by the same count.
    const startA = Math.max(0, f.a0 - context);
    const endA = Math.min(a.length, l.a1 + context);
    const startB = f.b0 - (f.a0 - startA);
    const endB = l.b1 + (endA - l.a1);
    hunks.push({
      oldStart: startA + 1,
      oldCount: endA - startA,
      newStart: startB + 1,
      newCount: endB - startB,
      changes: group,
    });
    for (const c of group) {
      removed += c.a1 - c.a0;
      added += c.b1 - c.b0;
    }
    first = last + 1;
  }
  return { oldLines: a, newLines: b, hunks, removed, added, coarse };
}

/** The hunk's lines in order, with both line numbers: made one at a time, so a page may stop early. */
export function* hunkLines(diff: RunDiff, h: Hunk): Generator<DiffLine> {
  const a = diff.oldLines;
  const b = diff.newLines;
  let i = h.oldStart - 1;
  let j = h.newStart - 1;
  for (const c of h.changes) {
    for (; i < c.a0; i++, j++) yield { kind: 'context', text: a[i] ?? '', oldNo: i + 1, newNo: j + 1 };
    for (; i < c.a1; i++) yield { kind: 'removed', text: a[i] ?? '', oldNo: i + 1 };
    for (; j < c.b1; j++) yield { kind: 'added', text: b[j] ?? '', newNo: j + 1 };
  }
  for (const end = h.oldStart - 1 + h.oldCount; i < end; i++, j++)
    yield { kind: 'context', text: a[i] ?? '', oldNo: i + 1, newNo: j + 1 };
}

/** One side's range in a hunk header: `start,count`, `start` alone for one line, the line before for none (GNU diff). */
function range(start: number, count: number): string {
  if (count === 1) return String(start);
  return `${count === 0 ? start - 1 : start},${count}`;
}

/** `@@ -1,4 +1,5 @@` */
export function hunkHeader(h: Hunk): string {
  return `@@ -${range(h.oldStart, h.oldCount)} +${range(h.newStart, h.newCount)} @@`;
}

/** The marker `diff -u` writes after a line that has no line feed. */
export const NO_NEWLINE = '\\ No newline at end of file';

/**
 * The diff as `diff -u` writes it, under `--- old` and `+++ new` headers (each a label, a tab and
 * a time); the empty string when there is no difference, as `diff -u` prints nothing.
 */
export function unifiedText(diff: RunDiff, oldHeader: string, newHeader: string): string {
  if (diff.hunks.length === 0) return '';
  // Concatenation, not an array joined: V8 builds a rope, and a 2 MiB run's lines are millions at most.
  let out = `--- ${oldHeader}\n+++ ${newHeader}\n`;
  const line = (mark: string, text: string) =>
    (out += text.endsWith('\n') ? mark + text : `${mark}${text}\n${NO_NEWLINE}\n`);
  const { oldLines: a, newLines: b } = diff;
  for (const h of diff.hunks) {
    out += `${hunkHeader(h)}\n`;
    let i = h.oldStart - 1;
    for (const c of h.changes) {
      for (; i < c.a0; i++) line(' ', a[i] ?? '');
      for (; i < c.a1; i++) line('-', a[i] ?? '');
      for (let j = c.b0; j < c.b1; j++) line('+', b[j] ?? '');
    }
    for (const end = h.oldStart - 1 + h.oldCount; i < end; i++) line(' ', a[i] ?? '');
  }
  return out;
}
