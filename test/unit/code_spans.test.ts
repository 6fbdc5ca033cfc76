// The catalogue's help texts on a page (src/views/code_spans.ts): each `code span` is <code>,
// escaped like any text; an unpaired backtick stays as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeSpans } from '../../src/views/code_spans.ts';

test('code spans become <code>, escaped; plain text and an unpaired backtick are kept', () => {
  for (const [text, shown] of [
    ['plain', 'plain'],
    ['method `local`', 'method <code>local</code>'],
    ['`a` and `b`', '<code>a</code> and <code>b</code>'],
    ['`<script>` & co', '<code>&lt;script&gt;</code> &amp; co'],
    ['one ` alone', 'one ` alone'],
    ['`a` then ` alone', '<code>a</code> then ` alone'],
    ['``', '<code></code>'],
  ] as const)
    assert.equal(codeSpans(text).value, shown, text);
});
