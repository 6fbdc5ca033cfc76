// Approval (docs/contract.md section 16) reads the waiting devices alone, on both backends: the
// device list's `status=pending` walks the partial index devices_pending from the cursor, and the
// dashboard's count and the gauge's oldest read that index and nothing else, so neither grows with
// the fleet. SQLite's plans are read from an empty store; PostgreSQL's at 20,000 devices of which
// 20 wait, after ANALYZE.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { devicesSql, filteredDevices } from '../../src/store/devices.ts';
import { pgSearchDevices } from '../../src/store/postgres/device_search.ts';
import type { Param, Sql } from '../../src/store/sql.ts';
import { sqliteSearchDevices } from '../../src/store/sqlite/device_search.ts';
import type { DeviceFilter } from '../../src/domain/devices.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const ADMIN: Viewer = { subject: 'local:admin', admin: true };
const OWNER: Viewer = { subject: 'oidc:owner-7', admin: false };
const T0 = Date.UTC(2026, 0, 1);

type Query = { sql: string; params: Param[] };

function lists(search: Sql['searchDevices']): Array<{ name: string; query: Query; sqlite: RegExp; postgres: RegExp }> {
  const devices = (viewer: Viewer, filter: Partial<DeviceFilter>, before?: string) =>
    filteredDevices({ searchDevices: search } as Sql, viewer, { limit: 50, before }, { staleBefore: T0, ...filter });
  return [
    {
      name: 'pending devices, newest first',
      query: devices(ADMIN, { status: 'pending' }),
      // The first page walks the partial index from its end: it holds the waiting devices alone.
      sqlite: /^SCAN devices USING (COVERING )?INDEX devices_pending$/,
      postgres: /Index (Only )?Scan Backward using devices_pending/,
    },
    {
      name: 'pending devices, a later page',
      query: devices(ADMIN, { status: 'pending' }, '10000'),
      sqlite: /^SEARCH devices USING (COVERING )?INDEX devices_pending \(seq<\?\)$/,
      postgres: /Index (Only )?Scan Backward using devices_pending/,
    },
    {
      name: "an owner's pending devices",
      query: devices(OWNER, { status: 'pending' }),
      sqlite: /devices_pending|devices_owner_seq/,
      postgres: /devices_pending|devices_owner_seq/,
    },
    {
      name: 'how many wait, and since when the oldest',
      query: { sql: devicesSql.pending, params: [] },
      sqlite: /^SCAN devices USING COVERING INDEX devices_pending$/,
      postgres: /Index Only Scan using devices_pending|Bitmap Index Scan on devices_pending/,
    },
  ];
}

test('SQLite EXPLAIN QUERY PLAN: the pending filter and the pending count read devices_pending, never the table, never a sort', async () => {
  await withSqliteSchema((db) => {
    for (const { name, query, sqlite } of lists(sqliteSearchDevices)) {
      const plan = sqlitePlan(db, query.sql);
      assert.match(plan, sqlite, `${name}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN devices$|SCAN devices\||TEMP B-TREE/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 20,000 devices, 20 pending: the pending filter and count read devices_pending, no sequential scan, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at, pending_since)
        SELECT 'd' || i, 'Device ' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, ${T0}::bigint + i,
          ${T0}::bigint + i, CASE WHEN i % 1000 = 7 THEN ${T0}::bigint + i END
        FROM generate_series(1, 20000) AS i`);
      await c.query('VACUUM ANALYZE devices');
      for (const [i, { name, query, postgres }] of lists(pgSearchDevices).entries()) {
        const plan = await postgresPlan(c, `pending_${i}`, query.sql, query.params);
        assert.match(plan, postgres, `${name}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on devices/, `${name}:\n${plan}`);
        if (!name.includes("owner's")) assert.doesNotMatch(plan, /Sort/, `${name}:\n${plan}`);
      }
    });
  },
);
