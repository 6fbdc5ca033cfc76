// The retention sweep's statements (store/retention.ts) search their level's index on SQLite: a
// batch reads its `limit` oldest runs of one level, and the dashboard's count of what the next
// sweep removes reads at most its bound, whatever the size of the table. Plans are read from an
// empty store; PostgreSQL's are checked in filter_plans.test.ts (through retention_plans.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRIVACY_LEVELS } from '../../src/domain/privacy.ts';
import { retentionSql } from '../../src/store/retention.ts';
import { sqlitePlan, withSqliteSchema } from '../support/plans.ts';

test('SQLite EXPLAIN QUERY PLAN: a retention batch and the due count search their level index, never scan, never sort', async () => {
  await withSqliteSchema((db) => {
    for (const level of PRIVACY_LEVELS) {
      const { deleteExpired, due } = retentionSql.levels[level];
      const index = `SEARCH runs USING COVERING INDEX runs_retention_${level} \\(privacy=\\? AND uploaded_at<\\?\\)`;
      const batch = sqlitePlan(db, deleteExpired);
      assert.match(
        batch,
        new RegExp(`^SEARCH runs USING INTEGER PRIMARY KEY \\(rowid=\\?\\)\\|LIST SUBQUERY \\d+\\|.*${index}`),
        batch,
      );
      assert.doesNotMatch(batch, /SCAN runs|TEMP B-TREE/, batch);
      const count = sqlitePlan(db, due);
      assert.match(count, new RegExp(index), count);
      assert.doesNotMatch(count, /SCAN runs|TEMP B-TREE/, count);
    }
  });
});
