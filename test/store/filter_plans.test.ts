// The fleet console's filtered lists (docs/contract.md section 9) walk an index on both backends: every
// filter, sort and later page costs what the first page of the plain list costs. SQLite's plans
// are read from an empty store; PostgreSQL's at 20,000 devices and 200,000 runs after ANALYZE.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { filteredDevices, seenRangeCount, substringPattern } from '../../src/store/devices.ts';
import { pgSearchDevices } from '../../src/store/postgres/device_search.ts';
import { filteredRuns, runsSql } from '../../src/store/runs.ts';
import type { Param, Sql } from '../../src/store/sql.ts';
import { sqliteSearchDevices } from '../../src/store/sqlite/device_search.ts';
import type { DeviceFilter } from '../../src/domain/devices.ts';
import type { RunFilter } from '../../src/domain/runs.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { assertRetentionPlans } from './retention_plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const ADMIN: Viewer = { subject: 'local:admin', admin: true };
const OWNER: Viewer = { subject: 'oidc:owner-7', admin: false };
const T0 = Date.UTC(2026, 0, 1);
const STALE = T0 + 15_000 * 60_000;

type Query = { sql: string; params: Param[] };

/** Each filtered list, named, with the index it must walk on each backend. */
function lists(search: Sql['searchDevices']): Array<{ name: string; query: Query; sqlite: RegExp; postgres: RegExp }> {
  const devices = (
    viewer: Viewer,
    filter: Partial<DeviceFilter>,
    before?: string,
    fewDevices = false,
    seenDrives = false,
  ) =>
    filteredDevices(
      { searchDevices: search } as Sql,
      viewer,
      { limit: 50, before },
      { staleBefore: STALE, ...filter },
      fewDevices,
      true,
      seenDrives,
    );
  // Last seen is spread over 20,000 minutes from T0 (the PostgreSQL data below): ten devices were
  // seen in the last ten minutes of it, all of them since T0.
  const FEW_SEEN = { since: T0 + 19_990 * 60_000 };
  const ALL_SEEN = { since: T0 };
  const runs = (viewer: Viewer, filter: RunFilter, seqs = { below: 150_000, atLeast: 0 }) =>
    filteredRuns(viewer, { limit: 50, before: '150000' }, filter, seqs);
  return [
    {
      name: 'search',
      query: devices(ADMIN, { q: 'ice 1234' }),
      // The index's matches walked newest first (FTS5 in rowid order, descending: 192), each device by its key.
      sqlite:
        /^SCAN devices_search VIRTUAL TABLE INDEX 192:M\d+\|SEARCH devices USING INTEGER PRIMARY KEY \(rowid=\?\)$/,
      postgres: /Bitmap Index Scan on devices_search/,
    },
    {
      name: 'search, scoped, later page',
      query: devices(OWNER, { q: 'ice 1234' }, '15000'),
      sqlite: /devices_search VIRTUAL TABLE INDEX/,
      postgres: /Index Scan on devices_search|Bitmap Index Scan on devices_search|devices_owner_seq/,
    },
    {
      // An owner's few devices (200 here) are read and each checked: the trigram index's lists hold
      // every device that shares a trigram with the search, and cost what the whole fleet does.
      name: "search within an owner's few devices, by name",
      query: devices(OWNER, { q: 'ice 1234', sort: 'name' }, undefined, true),
      sqlite: /devices_search VIRTUAL TABLE INDEX/,
      postgres: /devices_owner_(seq|name|seen)/,
    },
    {
      name: 'owner',
      query: devices(ADMIN, { owner: 'oidc:owner-7' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_owner_seq \(owner=\? AND seq<\?\)$/,
      postgres: /Index Scan Backward using devices_owner_seq/,
    },
    {
      name: 'revoked',
      query: devices(ADMIN, { status: 'revoked' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_revoked \(seq<\?\)$/,
      postgres: /Index (Only )?Scan Backward using devices_revoked/,
    },
    {
      name: 'stale',
      query: devices(ADMIN, { status: 'stale' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_unrevoked \(seq<\?\)$/,
      postgres: /Index Scan Backward using (devices_unrevoked|devices_pkey)/,
    },
    {
      name: 'by name, later page',
      query: devices(ADMIN, { sort: 'name' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_name \(name_key>\?\)/,
      postgres: /Index Scan using devices_name/,
    },
    {
      name: 'by name, scoped, later page',
      query: devices(OWNER, { sort: 'name' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_owner_name \(owner=\? AND name_key>\?\)/,
      postgres: /Bitmap Index Scan on devices_owner_name|Index Scan using devices_owner_name/,
    },
    {
      name: 'by last seen, later page',
      query: devices(ADMIN, { sort: 'last_seen' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_seen \(<expr><\?\)/,
      postgres: /Index Scan Backward using devices_seen/,
    },
    {
      name: 'by last seen, scoped, later page',
      query: devices(OWNER, { sort: 'last_seen' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_owner_seen \(owner=\? AND <expr><\?\)/,
      postgres: /Bitmap Index Scan on devices_owner_seen|Index Scan Backward using devices_owner_seen/,
    },
    {
      // docs/contract.md section 22: a window few devices were seen within is read whole from its range, then sorted.
      name: 'seen range, few, newest first',
      query: devices(ADMIN, { seen: FEW_SEEN }, '15000', false, true),
      sqlite: /^SEARCH devices USING INDEX devices_seen \(<expr>>\?\)\|USE TEMP B-TREE FOR ORDER BY$/,
      postgres: /devices_seen/,
    },
    {
      name: 'seen range, few, not seen, scoped',
      query: devices(OWNER, { seen: { before: T0 + 10 * 60_000 } }, '15000', false, true),
      sqlite:
        /^SEARCH devices USING INDEX devices_owner_seen \(owner=\? AND <expr><\?\)\|USE TEMP B-TREE FOR ORDER BY$/,
      postgres: /devices_owner_seen/,
    },
    {
      // A wide window: the newest devices walked, each checked (the range's `+ 0` keeps the planners off it).
      name: 'seen, many, newest first, later page',
      query: devices(ADMIN, { seen: ALL_SEEN }, '15000'),
      sqlite: /^SEARCH devices USING INTEGER PRIMARY KEY \(rowid<\?\)$/,
      postgres: /Index Scan Backward using devices_pkey/,
    },
    {
      name: 'seen, many, scoped, later page',
      query: devices(OWNER, { seen: ALL_SEEN }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_owner_seq \(owner=\? AND seq<\?\)$/,
      postgres: /devices_owner_seq/,
    },
    {
      name: 'how many the seen range holds, up to a bound',
      query: seenRangeCount(undefined, FEW_SEEN),
      sqlite: /SEARCH devices USING COVERING INDEX devices_seen \(<expr>>\?\)/,
      postgres: /(Index Only Scan using|Index Scan using|Bitmap Index Scan on) devices_seen/,
    },
    {
      name: 'how many the seen range holds, scoped',
      query: seenRangeCount(['oidc:owner-7'], FEW_SEEN),
      sqlite: /SEARCH devices USING COVERING INDEX devices_owner_seen \(owner=\? AND <expr>>\?\)/,
      postgres: /(Index Only Scan using|Index Scan using|Bitmap Index Scan on) devices_owner_seen/,
    },
    {
      name: 'silent longest first, later page',
      query: devices(ADMIN, { sort: 'last_seen_oldest' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_seen \(<expr>>\?\)/,
      postgres: /Index Scan using devices_seen/,
    },
    {
      name: 'silent longest first, scoped, later page',
      query: devices(OWNER, { sort: 'last_seen_oldest' }, '15000'),
      sqlite: /^SEARCH devices USING INDEX devices_owner_seen \(owner=\? AND <expr>>\?\)/,
      postgres: /devices_owner_seen/,
    },
    {
      name: 'silent longest first, not seen within a window',
      query: devices(ADMIN, { sort: 'last_seen_oldest', seen: { before: T0 + 10_000 * 60_000 } }),
      sqlite: /^SEARCH devices USING INDEX devices_seen \(<expr><\?\)$/,
      postgres: /Index Scan using devices_seen/,
    },
    {
      name: 'runs the level check has yet to see',
      query: { sql: runsSql.unchecked, params: [1_000, 100] },
      sqlite: /^SEARCH runs USING INDEX runs_unchecked \(seq>\?\)$/,
      postgres: /Index Scan using runs_unchecked/,
    },
    {
      name: 'runs of a device',
      query: runs(ADMIN, { device: 'd77' }),
      sqlite: /^SEARCH runs USING COVERING INDEX runs_device_list \(device_id=\? AND seq>\? AND seq<\?\)$/,
      // With ten runs a device, the planner may read them all through the index and sort them.
      postgres: /Index (Only )?Scan Backward using runs_device_list|Bitmap Index Scan on runs_device_list/,
    },
    {
      name: 'runs at a privacy level',
      query: runs(ADMIN, { privacy: 'minimal' }),
      sqlite: /^SEARCH runs USING COVERING INDEX runs_privacy_list \(privacy=\? AND seq>\? AND seq<\?\)$/,
      // A level a third of the runs share may be found as fast by walking the newest runs: both
      // stop after a page.
      postgres: /Index (Only )?Scan Backward using (runs_privacy_list|runs_pkey|runs_list)/,
    },
    {
      name: 'runs at a privacy level, scoped',
      query: runs(OWNER, { privacy: 'minimal' }),
      sqlite:
        /^SEARCH runs USING COVERING INDEX runs_owner_privacy_list \(owner=\? AND privacy=\? AND seq>\? AND seq<\?\)$/,
      postgres: /Index (Only )?Scan Backward using (runs_owner_privacy_list|runs_owner_list)/,
    },
    {
      name: 'flagged runs',
      query: runs(ADMIN, { flagged: true }),
      sqlite: /^SEARCH runs USING COVERING INDEX runs_flagged_list \(seq>\? AND seq<\?\)$/,
      postgres: /Index (Only )?Scan Backward using runs_flagged_list/,
    },
    {
      name: 'flagged runs, scoped',
      query: runs(OWNER, { flagged: true }),
      sqlite: /^SEARCH runs USING COVERING INDEX runs_owner_flagged_list \(owner=\? AND seq>\? AND seq<\?\)$/,
      postgres: /Index (Only )?Scan Backward using runs_owner_flagged_list/,
    },
    {
      name: 'runs in a day range',
      query: runs(ADMIN, { since: T0 + 86_400_000, until: T0 + 2 * 86_400_000 }, { below: 5_761, atLeast: 2_880 }),
      sqlite: /^SEARCH runs USING COVERING INDEX runs_list \(seq>\? AND seq<\?\)$/,
      postgres: /Index (Only )?Scan Backward using (runs_list|runs_pkey)/,
    },
    {
      name: 'runs in a day range, scoped',
      query: runs(OWNER, { since: T0 + 86_400_000 }, { below: 150_000, atLeast: 2_880 }),
      sqlite: /^SEARCH runs USING COVERING INDEX runs_owner_list \(owner=\? AND seq>\? AND seq<\?\)$/,
      postgres: /Index (Only )?Scan Backward using runs_owner_list/,
    },
  ];
}

test('SQLite EXPLAIN QUERY PLAN: each filtered list searches its index, never scans a table, never sorts', async () => {
  await withSqliteSchema((db) => {
    for (const { name, query, sqlite } of lists(sqliteSearchDevices)) {
      const plan = sqlitePlan(db, query.sql);
      assert.match(plan, sqlite, `${name}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN devices( |$|\|)|SCAN runs/, `${name}: ${plan}`);
      // Only a seen range read whole (at most SEEN_DRIVES_UP_TO devices) is sorted.
      if (!name.startsWith('seen range')) assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 20,000 devices and 200,000 runs: each filtered list walks its index, no sequential scan, no sort of the table',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      // One device in 50 revoked; last seen spread over 20,000 minutes, so about a quarter are stale.
      await c.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at, revoked_at)
        SELECT 'd' || i, 'Device ' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, ${T0}::bigint + i,
          ${T0}::bigint + (i * 7919 % 20000)::bigint * 60000, CASE WHEN i % 50 = 0 THEN ${T0}::bigint + i END
        FROM generate_series(1, 20000) AS i`);
      await c.query(`INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body)
        SELECT 'd' || (i % 20000 + 1), 'r' || i, 'oidc:owner-' || ((i % 20000 + 1) % 100), 'text/plain',
          (ARRAY['full', 'redacted', 'minimal'])[i % 3 + 1], 10, 's', ${T0}::bigint + i::bigint * 30000, '\\x00'
        FROM generate_series(1, 200000) AS i`);
      // One run in 200 flagged by the level check.
      await c.query('UPDATE runs SET flagged = 1 WHERE seq % 200 = 0');
      await c.query('VACUUM ANALYZE devices');
      await c.query('VACUUM ANALYZE runs');
      for (const [i, { name, query, postgres }] of lists(pgSearchDevices).entries()) {
        const plan = await postgresPlan(c, `filtered_${i}`, query.sql, query.params);
        assert.match(plan, postgres, `${name}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on (runs|devices)/, `${name}:\n${plan}`);
        if (name.includes('few devices')) assert.doesNotMatch(plan, /devices_search/, `${name}:\n${plan}`);
        // A search sorts the few devices that match, and the planner may sort one account's devices
        // (200 here) or one device's runs (10) read through their own index; nothing else sorts.
        if (
          !name.startsWith('search') &&
          !name.startsWith('seen range') &&
          !name.includes('scoped, later') &&
          name !== 'runs of a device'
        )
          assert.doesNotMatch(plan, /Sort/, `${name}:\n${plan}`);
      }
      await assertRetentionPlans(c, T0);
    });
  },
);

test('the search pattern escapes LIKE wildcards and lower-cases', () => {
  assert.equal(substringPattern('A_b%c\\'), '%a\\_b\\%c\\\\%');
});
