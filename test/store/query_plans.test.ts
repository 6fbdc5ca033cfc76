// The list queries on request paths use their indexes: a page costs the same at a million rows.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { listQueries } from '../../src/store/sqlite/list_queries.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite_store.ts';

test('EXPLAIN QUERY PLAN: every list query searches an index or the primary key, never scans, never sorts', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-plan-'));
  try {
    await openSqliteStore(dir).close();
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    const expected: Record<keyof typeof listQueries, RegExp> = {
      allDevices: /^SEARCH devices USING INTEGER PRIMARY KEY \(rowid<\?\)$/,
      ownDevices: /^SEARCH devices USING INDEX devices_owner_seq \(owner=\? AND seq<\?\)$/,
      allRuns: /^SEARCH runs USING COVERING INDEX runs_list \(seq<\?\)$/,
      ownRuns: /^SEARCH runs USING COVERING INDEX runs_owner_list \(owner=\? AND seq<\?\)$/,
    };
    for (const [name, sql] of Object.entries(listQueries) as Array<[keyof typeof listQueries, string]>) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((r) => String((r as { detail: string }).detail));
      assert.equal(plan.length, 1, `${name}: ${plan.join(' | ')}`);
      assert.match(plan[0] ?? '', expected[name], name);
      assert.doesNotMatch(sql, /OFFSET|count\(/i);
    }
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
