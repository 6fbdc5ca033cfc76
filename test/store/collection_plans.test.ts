// The statements of collection requests (docs/contract.md section 15) use their indexes on both
// backends: a collection's page, a device's open requests and the re-check of held devices cost
// the same whatever the number of devices and targets; a collection from a label reads the label's
// index, not the fleet. SQLite's plans are read from an empty store; PostgreSQL's at a size.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { collectionsSql, targetsInsert } from '../../src/store/collections.ts';
import type { Param, Sql } from '../../src/store/sql.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const admin = { subject: 'local:admin', admin: true };
const asked = {
  id: 'c_plan',
  createdBy: 'local:admin',
  createdAt: 1,
  privacy: 'redacted' as const,
  reason: 'plan',
  expiresAt: 2,
};

/** The SELECT of the targets' INSERT … SELECT for a label filter (the statement's reading part). */
async function fromLabel(): Promise<{ sql: string; params: Param[] }> {
  // Only searchDevices and a count would be read from the Sql here, and neither is used by this filter.
  const db = { searchDevices: () => ({ sql: '1 = 1', params: [] }) } as unknown as Sql;
  const insert = await targetsInsert(db, admin, asked, {
    filter: { labels: [{ key: 'line', value: '3' }], staleBefore: 0 },
  });
  return { sql: insert.sql.slice(insert.sql.indexOf('SELECT')), params: insert.params };
}

const checked = {
  allCollections: { sql: collectionsSql.allCollections, args: [1_500, 51] },
  ownCollections: { sql: collectionsSql.ownCollections, args: ['oidc:owner-7', 1_500, 51] },
  // The lists' totals (section 22): the same walks without columns, up to 10,001 rows.
  allCount: { sql: collectionsSql.allCount, args: [Number.MAX_SAFE_INTEGER, 10_001] },
  ownCount: { sql: collectionsSql.ownCount, args: ['oidc:owner-7', Number.MAX_SAFE_INTEGER, 10_001] },
  targets: { sql: collectionsSql.targets, args: ['c_7', 180_000, 51] },
  targetsInState: { sql: collectionsSql.targetsInState, args: ['c_7', 'fulfilled', 180_000, 51] },
  openRequests: { sql: collectionsSql.openRequests, args: ['d42', 0, 5] },
  counts: { sql: collectionsSql.counts(2), args: ['c_7', 'c_8'] },
  // A non-admin's view and cancel (issue 42): its targets, counts and cancel read the collection's
  // index and each target's device by its id, never the fleet.
  ownTargets: { sql: collectionsSql.ownTargets, args: ['c_7', 'oidc:owner-7', 'oidc:owner-7', 180_000, 51] },
  ownTargetsInState: {
    sql: collectionsSql.ownTargetsInState,
    args: ['c_7', 'fulfilled', 'oidc:owner-7', 'oidc:owner-7', 180_000, 51],
  },
  ownCounts: { sql: collectionsSql.ownCounts(2), args: ['c_7', 'c_8', 'oidc:owner-7', 'oidc:owner-7'] },
  cancelOwn: { sql: collectionsSql.cancelOwn, args: [5, 'c_7', 'oidc:owner-7', 'oidc:owner-7'] },
  markCancelled: { sql: collectionsSql.markCancelled, args: [5, 'c_7', 'c_7'] },
  // An upload's X-Collection: the request and the level of a run stored under the id, in one read.
  requestAndRun: { sql: collectionsSql.requestAndRun, args: ['run-1', 7, 'd42'] },
  expiring: { sql: collectionsSql.expiring, args: [10, 500] },
  toWake: { sql: collectionsSql.toWake(2), args: ['d1', 'd2', 0] },
  standingOf: { sql: collectionsSql.standingOf(2), args: ['d1', 'd2'] },
} as const;

/** SQLite's plan of ownedSql: the account's groups by account_groups' primary key, once a statement. */
const OWNED = String.raw`\|LIST SUBQUERY \d+\|SEARCH g USING PRIMARY KEY \(subject=\?\)(\|CREATE BLOOM FILTER)?`;

test('SQLite EXPLAIN QUERY PLAN: every collection statement searches an index, never scans a table, never sorts', async () => {
  await withSqliteSchema(async (db) => {
    const expected: Record<keyof typeof checked, RegExp> = {
      allCollections: /^SEARCH c USING INTEGER PRIMARY KEY \(rowid<\?\)$/,
      ownCollections: /^SEARCH c USING INDEX collections_creator \(created_by=\? AND seq<\?\)$/,
      allCount: /^SEARCH c USING INTEGER PRIMARY KEY \(rowid<\?\)$/,
      ownCount: /^SEARCH c USING COVERING INDEX collections_creator \(created_by=\? AND seq<\?\)$/,
      targets: /^SEARCH t USING INDEX collection_targets_page \(collection=\? AND seq<\?\)\|SEARCH d USING INDEX/,
      targetsInState: /^SEARCH t USING INDEX collection_targets_collection \(collection=\? AND state=\? AND seq<\?\)/,
      openRequests: /^SEARCH t USING INDEX collection_targets_open \(device=\?\)\|SEARCH c USING INDEX/,
      counts: /^SEARCH collection_targets USING COVERING INDEX collection_targets_collection \(collection=\?\)/,
      // The device's owner checked against the account's groups, read once by their primary key (sql.ts, ownedSql).
      ownTargets: new RegExp(
        String.raw`^SEARCH t USING INDEX collection_targets_page \(collection=\? AND seq<\?\)\|SEARCH d USING INDEX \w+ \(id=\?\)${OWNED}$`,
      ),
      ownTargetsInState: new RegExp(
        String.raw`^SEARCH t USING INDEX collection_targets_collection \(collection=\? AND state=\? AND seq<\?\)\|SEARCH d USING INDEX \w+ \(id=\?\)${OWNED}$`,
      ),
      ownCounts: new RegExp(
        String.raw`^SEARCH t USING INDEX collection_targets_collection \(collection=\?\)\|SEARCH d USING INDEX \w+ \(id=\?\)${OWNED}$`,
      ),
      cancelOwn: /^SEARCH collection_targets USING INDEX collection_targets_collection \(collection=\? AND state=\?\)/,
      markCancelled: /^SEARCH collections USING INDEX \w+ \(id=\?\)\|SCALAR SUBQUERY 1\|SEARCH t USING COVERING INDEX/,
      requestAndRun: /SEARCH r USING (COVERING )?INDEX \w+ \(device_id=\? AND id=\?\)/,
      expiring: /^SEARCH collections USING INDEX collections_open_expiry \(expires_at<\?\)$/,
      toWake: /^SEARCH t USING INDEX collection_targets_open \(device=\?\)\|SEARCH c USING INDEX \w+ \(id=\?\)$/,
      standingOf: /^SEARCH devices USING INDEX \w+ \(id=\?\)$/,
    };
    for (const [name, { sql }] of Object.entries(checked)) {
      const plan = sqlitePlan(db, sql);
      assert.match(plan, expected[name as keyof typeof checked], `${name}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN (collections|collection_targets|devices)\b(?! USING)/, `${name}: ${plan}`);
      assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY/, `${name}: ${plan}`);
    }
    const label = sqlitePlan(db, (await fromLabel()).sql);
    assert.match(label, /SEARCH device_labels USING COVERING INDEX device_labels_value \(key=\? AND value=\?\)/, label);
    assert.doesNotMatch(label, /SCAN devices\b(?! USING)/, label);
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 20,000 devices and 200,000 targets: index scans that stop after a page, no sequential scan, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at)
        SELECT 'd' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, i FROM generate_series(1, 20000) AS i`);
      await c.query(`INSERT INTO device_labels (device_seq, key, value)
        SELECT seq, 'line', (seq % 50)::text FROM devices`);
      await c.query(`INSERT INTO collections (id, created_by, created_at, privacy, reason, expires_at, closed_at)
        SELECT 'c_' || i, 'oidc:owner-' || (i % 100), i, 'redacted', 'r', i + 1000, CASE WHEN i % 10 <> 0 THEN i + 500 END
        FROM generate_series(1, 2000) AS i`);
      await c.query(`INSERT INTO collection_targets (collection, device, state, since)
        SELECT 'c_' || (i % 2000 + 1), 'd' || (i % 20000 + 1),
          CASE WHEN i % 20 = 0 THEN 'pending' WHEN i % 20 = 1 THEN 'delivered' ELSE 'fulfilled' END, i
        FROM generate_series(1, 200000) AS i`);
      for (const t of ['devices', 'device_labels', 'collections', 'collection_targets'])
        await c.query(`VACUUM ANALYZE ${t}`);
      const expected: Record<keyof typeof checked, RegExp> = {
        allCollections: /Index Scan Backward using collections_pkey on collections/,
        // An account's collections (a few dozen here): its index, walked or read as a bitmap and sorted.
        ownCollections: /(Index Scan Backward using|Bitmap Index Scan on) collections_creator/,
        allCount: /Index (Only )?Scan Backward using collections_pkey on collections/,
        ownCount: /(Index (Only )?Scan Backward using|Bitmap Index Scan on) collections_creator/,
        targets: /Index Scan Backward using collection_targets_page on collection_targets/,
        targetsInState: /Index Scan Backward using collection_targets_collection on collection_targets/,
        openRequests: /Index Scan using collection_targets_open on collection_targets/,
        counts: /(Index Only Scan|Bitmap Index Scan|Index Scan) (using|on) collection_targets_(collection|page)/,
        // A non-admin's page: the collection's targets by its index, joined to the owner's devices
        // (by their id, or read by the owner's index and hashed), sorted when that is cheaper.
        ownTargets: /(Index Scan Backward using|Bitmap Index Scan on) collection_targets_page/,
        ownTargetsInState: /(Index Scan Backward using|Bitmap Index Scan on) collection_targets_collection/,
        ownCounts: /(Index Only Scan|Bitmap Index Scan|Index Scan) (using|on) collection_targets_(collection|page)/,
        cancelOwn: /(Index Scan|Bitmap Index Scan) (using|on) collection_targets_(collection|page)/,
        markCancelled: /Index Scan using collections_id_key on collections/,
        requestAndRun: /Index (Only )?Scan using \w+ on runs r/,
        expiring: /Index Scan using collections_open_expiry on collections/,
        // The held devices' open targets; those of them revoked (a partial index of revoked devices, or by id).
        toWake: /collection_targets_open/,
        standingOf: /Index (Only )?Scan using devices_id_key/,
      };
      for (const [name, { sql, args }] of Object.entries(checked)) {
        const plan = await postgresPlan(c, `plan_${name}`, sql, args);
        assert.match(plan, expected[name as keyof typeof checked], `${name}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on (collections|collection_targets|devices)/, `${name}:\n${plan}`);
        if (/^(allCollections|allCount|targets|targetsInState)$/.test(name))
          assert.doesNotMatch(plan, /Sort/, `${name}:\n${plan}`);
      }
      const { sql, params } = await fromLabel();
      const label = await postgresPlan(c, 'plan_label', sql, params);
      assert.match(label, /device_labels_value/, label);
      assert.doesNotMatch(label, /Seq Scan on (devices|device_labels)/, label);
    });
  },
);
