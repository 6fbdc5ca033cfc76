// The retention sweep's statements (store/retention.ts) walk runs_retention on both backends: a
// batch reads its `limit` oldest runs of one level, and the dashboard's count of what the next
// sweep removes reads at most its bound, whatever the size of the table. SQLite's plans are read
// from an empty store; PostgreSQL's at 200,000 runs after ANALYZE.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { retentionSql } from '../../src/store/retention.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { postgresPlan, sqlitePlan } from '../support/plans.ts';
import { admin, dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const T0 = Date.UTC(2026, 0, 1);

test('SQLite EXPLAIN QUERY PLAN: a retention batch and the due count search runs_retention, never scan, never sort', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-plan-'));
  try {
    await openSqliteStore(dir).close();
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    const batch = sqlitePlan(db, retentionSql.deleteExpired);
    assert.match(
      batch,
      /^SEARCH runs USING INTEGER PRIMARY KEY \(rowid=\?\)\|LIST SUBQUERY 1\|SEARCH runs USING COVERING INDEX runs_retention \(privacy=\? AND uploaded_at<\?\)/,
      batch,
    );
    assert.doesNotMatch(batch, /SCAN runs|TEMP B-TREE/, batch);
    const due = sqlitePlan(db, retentionSql.due);
    assert.match(due, /SEARCH runs USING COVERING INDEX runs_retention \(privacy=\? AND uploaded_at<\?\)/, due);
    assert.doesNotMatch(due, /SCAN runs|TEMP B-TREE/, due);
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 200,000 runs: a retention batch and the due count walk runs_retention, no sequential scan of runs, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    const schema = freshSchema();
    await (await openPostgresStore(PG_URL, { schema })).close();
    await admin(async (c) => {
      await c.query(`SET search_path = "${schema}"`);
      await c.query(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at)
      SELECT 'd' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, i FROM generate_series(1, 2000) AS i`);
      await c.query(`INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body)
      SELECT 'd' || (i % 2000 + 1), 'r' || i, 'oidc:owner-' || ((i % 2000 + 1) % 100), 'text/plain',
        (ARRAY['full', 'redacted', 'minimal'])[i % 3 + 1], 10 + i % 50, 's',
        ${T0}::bigint + i::bigint * 30000, '\\x00' FROM generate_series(1, 200000) AS i`);
      await c.query('VACUUM ANALYZE runs');
      // A tenth of the runs expired: the sweep's cut-off is 20,000 runs into the table.
      const before = T0 + 20_000 * 30_000;
      for (const privacy of ['full', 'minimal']) {
        const batch = await postgresPlan(c, `retention_delete_${privacy}`, retentionSql.deleteExpired, [
          privacy,
          before,
          500,
        ]);
        assert.match(batch, /Index (Only )?Scan using runs_retention on runs/, batch);
        assert.match(batch, /Index Scan using runs_pkey on runs/, batch);
        assert.doesNotMatch(batch, /Seq Scan on runs|Sort/, batch);
        const due = await postgresPlan(c, `retention_due_${privacy}`, retentionSql.due, [privacy, before, 5000]);
        assert.match(due, /Index Only Scan using runs_retention on runs/, due);
        assert.doesNotMatch(due, /Seq Scan on runs|Sort/, due);
      }
      // Nothing expired yet: the same plans.
      const none = await postgresPlan(c, 'retention_delete_none', retentionSql.deleteExpired, ['full', T0, 500]);
      assert.match(none, /Index (Only )?Scan using runs_retention on runs/, none);
      assert.doesNotMatch(none, /Seq Scan on runs|Sort/, none);
    });
  },
);
