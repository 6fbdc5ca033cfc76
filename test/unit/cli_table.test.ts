// The admin CLI's tables (src/cli/table.ts): values from the server never reach the terminal as
// control characters, and columns line up whatever the width of their cells.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printable, record, table } from '../../src/cli/table.ts';

test('control characters, C1 ones, DEL, bidi overrides and the backslash are escaped visibly; null is a dash', () => {
  assert.equal(
    printable('a\u001b[2Jb\u0007c\u009bd\u007fe\nf\u202eg\\h'),
    'a\\u001b[2Jb\\u0007c\\u009bd\\u007fe\\nf\\u202eg\\\\h',
  );
  assert.equal(printable(null), '-');
  assert.equal(printable('émoji 🐑'), 'émoji 🐑');
});

test('a table pads each column to its widest cell, counting characters, not code units', () => {
  assert.equal(
    table(
      ['ID', 'NAME', 'NOTE'],
      [
        ['d_1', '🐑🐑', 'x'],
        ['d_22', 'n', null],
      ],
    ),
    'ID    NAME  NOTE\nd_1   🐑🐑    x\nd_22  n     -\n',
  );
  assert.equal(record({ id: 'd_1', last_seen_at: null }), 'id:           d_1\nlast_seen_at: -\n');
});
