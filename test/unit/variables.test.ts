// The settings table (src/config/variables.ts) is the one list of variables: the README documents
// each, every default passes its own parser, and secrets are never echoed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/parse.ts';
import { settings } from '../../src/config/variables.ts';

const rows = Object.values(settings);

/** The rows of README.md's `| variable | meaning | …` tables (configuration and TLS): variables and cells. */
function readmeRows(): Array<{ variables: string[]; cells: string[] }> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const tables = readme.split(/\n(?=\| variable \| meaning )/).slice(1);
  return tables.flatMap((table) => {
    const lines = table.split('\n').slice(2);
    const end = lines.findIndex((line) => !line.startsWith('|'));
    return lines.slice(0, end === -1 ? undefined : end).map((line) => {
      const cells = line.split(' | ');
      return { variables: [...(cells[0] ?? '').matchAll(/`(PADDOCK_[A-Z_]+)`/g)].map((m) => m[1] ?? ''), cells };
    });
  });
}

test("every variable of the settings table is in the README's tables, and the README lists no other", () => {
  const documented = readmeRows().flatMap((row) => row.variables);
  assert.deepEqual([...documented].sort(), rows.map((row) => row.variable).sort());
});

test("the README's default column shows each default value of the table", () => {
  for (const { variables, cells } of readmeRows()) {
    for (const variable of variables) {
      const row = rows.find((r) => r.variable === variable);
      if (row === undefined || !('default' in row) || cells.length < 3) continue;
      assert.ok(cells[2]?.includes(`\`${row.default}\``), `${variable}: README default ${cells[2]}`);
    }
  }
});

test('every default passes its own parser; a row without one says what applies instead', () => {
  for (const row of rows) {
    if ('default' in row) assert.doesNotThrow(() => row.parse(row.default), row.variable);
    else assert.ok(row.unset.length > 0, row.variable);
    assert.ok(row.help.length > 0 && !row.help.includes('\n'), row.variable);
  }
});

test('a bad secret is refused without being echoed', () => {
  const bad = ['tiny-secret', 'not a valid value \u0001', 'mysql://user:hunter2@db/x'];
  for (const row of rows.filter((r) => 'secret' in r && r.secret)) {
    let refused = 0;
    for (const value of bad) {
      try {
        loadConfig({ [row.variable]: value });
      } catch (err) {
        assert.ok(err instanceof ConfigError && err.variable === row.variable, row.variable);
        assert.ok(!err.message.includes(value), `${row.variable}: ${err.message}`);
        refused++;
      }
    }
    assert.ok(refused > 0, `${row.variable} refused none of the bad values`);
  }
});
