// The diff of docs/contract.md section 21 against the real GNU tools: for random pairs of texts (CRLF
// lines, a missing final newline, empty texts), GNU patch turns the old text into the new one with
// our unified diff, byte for byte, and we count as many removed and added lines as GNU diff does.
// The coarse answer past the comparison budget is exact for patch too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { diffTexts, splitLines, unifiedText } from '../../src/domain/run_diff.ts';

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff), s / 0x7fffffff);
}

function text(r: () => number): string {
  const words = ['a', 'b', 'c', 'd', '', 'x\r', 'ü'];
  const n = Math.floor(r() * 25);
  let out = '';
  for (let i = 0; i < n; i++)
    out += `${words[Math.floor(r() * words.length)] ?? ''}${i === n - 1 && r() < 0.3 ? '' : '\n'}`;
  return out;
}

/** GNU patch's result of applying `diff` to `old`. */
function patch(dir: string, old: string, diff: string): string {
  writeFileSync(join(dir, 'old'), old);
  writeFileSync(join(dir, 'diff'), diff);
  execFileSync('/usr/bin/patch', ['--quiet', '-u', join(dir, 'old'), join(dir, 'diff')], { stdio: 'pipe' });
  return readFileSync(join(dir, 'old'), 'utf8');
}

/** GNU diff's removed and added line counts. */
function gnuCounts(dir: string, a: string, b: string): [number, number] {
  writeFileSync(join(dir, 'a'), a);
  writeFileSync(join(dir, 'b'), b);
  let out = '';
  try {
    execFileSync('diff', ['-u', join(dir, 'a'), join(dir, 'b')]);
  } catch (err) {
    out = String((err as { stdout: Buffer }).stdout);
  }
  const lines = out.split('\n').slice(2);
  return [lines.filter((l) => l.startsWith('-')).length, lines.filter((l) => l.startsWith('+')).length];
}

test('splitLines keeps each line feed, a CR as content, and a last line without one', () => {
  assert.deepEqual(splitLines(''), []);
  assert.deepEqual(splitLines('a\r\n\nb'), ['a\r\n', '\n', 'b']);
  assert.deepEqual(splitLines('a\n'), ['a\n']);
});

test('random pairs: GNU patch makes the new text exactly, with as many changes as GNU diff counts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paddock-diff-'));
  try {
    const r = random(42);
    for (let k = 0; k < 150; k++) {
      const a = text(r);
      const b = r() < 0.5 ? text(r) : a.replace(/b/g, 'q');
      const diff = diffTexts(a, b);
      const unified = unifiedText(diff, 'old', 'new');
      if (a === b) {
        assert.equal(unified, '');
        continue;
      }
      assert.equal(patch(dir, a, unified), b, JSON.stringify([a, b]));
      assert.deepEqual([diff.removed, diff.added], gnuCounts(dir, a, b), JSON.stringify([a, b]));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('past the comparison budget the diff is coarse, and still exact for patch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paddock-diff-'));
  try {
    const half = 20_000;
    const a = `head\n${'x\n'.repeat(half)}${'y\n'.repeat(half)}tail\n`;
    const b = `head\n${'y\n'.repeat(half)}${'x\n'.repeat(half)}tail\n`;
    const started = performance.now();
    const diff = diffTexts(a, b);
    assert.ok(performance.now() - started < 2_000);
    assert.equal(diff.coarse, true);
    assert.deepEqual([diff.removed, diff.added, diff.hunks.length], [2 * half, 2 * half, 1]);
    assert.equal(patch(dir, a, unifiedText(diff, 'old', 'new')), b);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
