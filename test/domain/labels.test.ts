// docs/contract.md section 12: the shape of a label, one value per key, at most 20, and refusals that name
// the label at fault.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  changedLabels,
  labelLines,
  parseLabel,
  parseLabelLines,
  parseLabelSelector,
  MAX_LABELS,
} from '../../src/domain/labels.ts';

const plain = (labels: object) => ({ ...labels });

test('keys and values of the allowed shapes are read', () => {
  for (const [text, key, value] of [
    ['site=berlin', 'site', 'berlin'],
    ['0line=3', '0line', '3'],
    ['a.b_c-d=X.y_Z-9', 'a.b_c-d', 'X.y_Z-9'],
    ['empty=', 'empty', ''],
    [`${'k'.repeat(63)}=${'V'.repeat(63)}`, 'k'.repeat(63), 'V'.repeat(63)],
    ['constructor=x', 'constructor', 'x'],
  ] as const) {
    assert.deepEqual(parseLabel(text), { ok: true, value: { key, value } }, text);
  }
});

test('every forbidden shape is refused, naming the label', () => {
  for (const text of [
    'site',
    '=berlin',
    'Site=berlin',
    '-site=x',
    '.site=x',
    '_site=x',
    '__proto__=x',
    `${'k'.repeat(64)}=x`,
    `k=${'v'.repeat(64)}`,
    'k=a b',
    'k=a=b',
    'k=ü',
    'k=<script>',
    'k\u0000=x',
    'kéy=x',
  ]) {
    const read = parseLabel(text);
    assert.equal(read.ok, false, text);
    if (!read.ok) assert.match(read.error, /^label ".*":/, text);
  }
});

test('an error quotes the label without control characters and cut short', () => {
  const read = parseLabel(`k=${'\u0007'.repeat(100)}`);
  assert.equal(read.ok, false);
  if (!read.ok) {
    assert.doesNotMatch(read.error, /\u0007/);
    assert.ok(read.error.length < 200);
  }
});

test('a filter is key=value or a key alone', () => {
  assert.deepEqual(parseLabelSelector('site'), { ok: true, value: { key: 'site' } });
  assert.deepEqual(parseLabelSelector('site=berlin'), { ok: true, value: { key: 'site', value: 'berlin' } });
  assert.equal(parseLabelSelector('Site').ok, false);
});

test('form lines: blank lines skipped, CRLF accepted, sorted by key', () => {
  const read = parseLabelLines('site=berlin\r\n\r\n  line=3  \n');
  assert.ok(read.ok);
  assert.deepEqual(plain(read.value), { line: '3', site: 'berlin' });
  assert.deepEqual(Object.keys(read.value), ['line', 'site']);
  assert.equal(labelLines(read.value), 'line=3\nsite=berlin');
});

test('two values for one key are refused, naming the second', () => {
  const read = parseLabelLines('site=berlin\nsite=paris');
  assert.equal(read.ok, false);
  if (!read.ok) assert.match(read.error, /"site=paris".*twice/);
});

test(`more than ${MAX_LABELS} labels are refused, naming the first one too many`, () => {
  const lines = Array.from({ length: MAX_LABELS + 1 }, (_, i) => `k${i}=v`).join('\n');
  const read = parseLabelLines(lines);
  assert.equal(read.ok, false);
  if (!read.ok) assert.match(read.error, /"k20=v".*at most 20/);
  assert.ok(parseLabelLines(lines.split('\n').slice(0, MAX_LABELS).join('\n')).ok);
});

test('changes: set overrides, remove deletes, the changed keys are listed, and the limit holds', () => {
  const current = { a: '1', b: '2' };
  const read = changedLabels(current, { b: '3', c: '' }, ['a', 'zz']);
  assert.ok(read.ok);
  assert.deepEqual(plain(read.value.labels), { b: '3', c: '' });
  assert.deepEqual(read.value.changed, ['a', 'b', 'c']);
  const full = Object.fromEntries(Array.from({ length: MAX_LABELS }, (_, i) => [`k${i}`, 'v']));
  assert.equal(changedLabels(full, { extra: 'v' }, []).ok, false);
  assert.ok(changedLabels(full, { extra: 'v' }, ['k0']).ok);
  assert.ok(changedLabels(full, { k1: 'w' }, []).ok);
  // An inherited property is never taken for a label (`constructor` is a valid key).
  const inherited = changedLabels({}, { constructor: 'x' }, ['toString']);
  assert.ok(inherited.ok);
  assert.deepEqual(inherited.value.changed, ['constructor']);
});
