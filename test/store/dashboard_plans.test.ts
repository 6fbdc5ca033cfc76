// The dashboard's fleet counts and its chart by level (store/dashboard.ts) read indexes that hold
// only what they count, on both backends: a dashboard costs the same at a million runs, whatever
// lies outside the chart's two weeks, the devices seen, the flagged runs or the open collections.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { PRIVACY_LEVELS } from '../../src/domain/privacy.ts';
import { dashboardSql } from '../../src/store/dashboard.ts';
import type { Param } from '../../src/store/sql.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const T0 = Date.UTC(2026, 0, 1);
const owners = ['oidc:owner-7', 'group:g1', 'group:g2'];

/** Each statement, its arguments for PostgreSQL, and the index both backends search with it. */
const checked: Record<string, { sql: string; args: Param[]; index: string }> = {
  onlineAll: { sql: dashboardSql.online.all, args: [T0 + 9_500 * 30_000], index: 'devices_seen' },
  onlineOwners: { sql: dashboardSql.online.owners(3), args: [T0, ...owners], index: 'devices_owner_seen' },
  seenAll: { sql: dashboardSql.seenSince.all, args: [T0 + 9_500 * 30_000], index: 'devices_seen' },
  seenOwn: { sql: dashboardSql.seenSince.own, args: [T0, 'oidc:owner-7'], index: 'devices_owner_seen' },
  seenOwners: { sql: dashboardSql.seenSince.owners(3), args: [T0, ...owners], index: 'devices_owner_seen' },
  staleAll: { sql: dashboardSql.stale.all, args: [T0 + 1_000 * 30_000], index: 'devices_seen' },
  staleOwn: { sql: dashboardSql.stale.own, args: [T0 + 1_000 * 30_000, 'oidc:owner-7'], index: 'devices_owner_seen' },
  openCollectionsAll: { sql: dashboardSql.openCollections.all, args: [], index: 'collections_open_expiry' },
  openCollectionsOwn: {
    sql: dashboardSql.openCollections.own,
    args: ['oidc:owner-7'],
    // An account's own, or the few open ones of everyone's, whichever holds fewer.
    index: '(collections_creator|collections_open_expiry)',
  },
  flaggedAll: { sql: dashboardSql.flaggedRuns.all, args: [], index: 'runs_(owner_)?flagged_list' },
  flaggedOwn: { sql: dashboardSql.flaggedRuns.own, args: ['oidc:owner-7'], index: 'runs_owner_flagged_list' },
  firstSince: { sql: dashboardSql.firstSince, args: [T0 + 95_000 * 30_000], index: 'runs_uploaded_at' },
  ownPerDay: {
    sql: dashboardSql.ownerPerDay.own,
    args: [95_000, T0 + 95_000 * 30_000, 'oidc:owner-7'],
    index: 'runs_owner_list',
  },
  ownersPerDay: {
    sql: dashboardSql.ownerPerDay.owners(3),
    args: [95_000, T0 + 95_000 * 30_000, ...owners],
    index: 'runs_owner_list',
  },
};

test('SQLite EXPLAIN QUERY PLAN: each dashboard count searches the index of what it counts, never scans a table', async () => {
  await withSqliteSchema((db) => {
    for (const [name, { sql, index }] of Object.entries(checked)) {
      const plan = sqlitePlan(db, sql);
      assert.match(plan, new RegExp(`^(SEARCH|SCAN) \\w+ USING (COVERING )?INDEX ${index}\\b`), `${name}: ${plan}`);
      assert.doesNotMatch(
        plan,
        /SCAN (runs|devices|collections)$|SCAN (runs|devices|collections)\|/,
        `${name}: ${plan}`,
      );
    }
    // An administrator's chart: each day and level a range of the level's partial index, nothing else.
    const chart = sqlitePlan(db, dashboardSql.levelDays(2));
    for (const level of PRIVACY_LEVELS) {
      const range = `SEARCH runs USING COVERING INDEX runs_retention_${level} \\(privacy=\\? AND uploaded_at>\\? AND uploaded_at<\\?\\)`;
      assert.equal(chart.match(new RegExp(range, 'g'))?.length, 2, chart);
    }
    assert.doesNotMatch(chart, /SCAN runs|TEMP B-TREE|runs_uploaded_at/, chart);
    // An owner's chart reads every column from its index, never a run's row (which may hold its body).
    for (const name of ['ownPerDay', 'ownersPerDay'] as const) {
      const plan = sqlitePlan(db, checked[name]?.sql ?? '');
      assert.match(plan, /COVERING INDEX/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 10,000 devices and 100,000 runs: each dashboard count an index scan of what it counts, no sequential scan',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, last_seen_at, revoked_at)
      SELECT 'd' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, i,
        CASE WHEN i % 3 = 0 THEN NULL ELSE ${T0}::bigint + i::bigint * 30000 END,
        CASE WHEN i % 50 = 0 THEN i END FROM generate_series(1, 10000) AS i`);
      await c.query(`INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, flagged)
      SELECT 'd' || (i % 10000 + 1), 'r' || i, 'oidc:owner-' || ((i % 10000 + 1) % 100), 'text/plain',
        (ARRAY['full', 'redacted', 'minimal'])[i % 3 + 1], 10, 's', ${T0}::bigint + i::bigint * 30000, '\\x00',
        CASE WHEN i % 1000 = 0 THEN 1 ELSE 0 END FROM generate_series(1, 100000) AS i`);
      await c.query(`INSERT INTO collections (id, created_by, created_at, privacy, reason, expires_at, closed_at)
      SELECT 'c' || i, 'oidc:owner-' || (i % 100), i, 'minimal', 'r', i + 1000, CASE WHEN i % 100 <> 0 THEN i + 10 END
        FROM generate_series(1, 10000) AS i`);
      for (const table of ['devices', 'runs', 'collections']) await c.query(`VACUUM ANALYZE ${table}`);
      const days = [0, 1].flatMap((i) => [
        T0 + (95_000 + i * 2_880) * 30_000,
        T0 + (95_000 + (i + 1) * 2_880) * 30_000,
      ]);
      const chart = await postgresPlan(c, 'dashboard_chart', dashboardSql.levelDays(2), [...days, ...days, ...days]);
      for (const level of PRIVACY_LEVELS)
        assert.match(chart, new RegExp(`Index Only Scan using runs_retention_${level} on runs`), chart);
      assert.doesNotMatch(chart, /Seq Scan|Bitmap Heap Scan|runs_uploaded_at/, chart);
      for (const [name, { sql, args, index }] of Object.entries(checked)) {
        const plan = await postgresPlan(c, `dashboard_${name}`, sql, args);
        assert.match(
          plan,
          new RegExp(`(Index (Only )?Scan( Backward)? using|Bitmap Index Scan on) ${index}\\b`),
          `${name}:\n${plan}`,
        );
        assert.doesNotMatch(plan, /Seq Scan on (runs|devices|collections)/, `${name}:\n${plan}`);
      }
    });
  },
);
