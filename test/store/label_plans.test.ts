// The device list's label filters (docs/contract.md section 12) read an index on both backends, no
// scan of devices: an administrator's newest-first list is read from the label index itself,
// walked backwards from the cursor, whether the label is rare or common; any other list walks its
// own index and checks each label on device_labels' primary key. SQLite's plans are read from an
// empty store; PostgreSQL's at 100,000 devices with 5 labels each, after ANALYZE.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { filteredDevices } from '../../src/store/devices.ts';
import { labelsOfSeqsSql } from '../../src/store/labels.ts';
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
const DEVICES = 100_000;

type Query = { sql: string; params: Param[] };

/**
 * Each device i carries fleet=main (every device: the common label), site=s<i % 10>,
 * line=l<i % 100>, rack=r<i % 1000> and serial=n<i> (one device: the rarest).
 */
function lists(search: Sql['searchDevices']): Array<{ name: string; query: Query; sqlite: RegExp; postgres: RegExp }> {
  const devices = (viewer: Viewer, filter: Partial<DeviceFilter>, before?: string) =>
    filteredDevices({ searchDevices: search } as Sql, viewer, { limit: 50, before }, { staleBefore: T0, ...filter });
  const byValue =
    /^SEARCH dl USING COVERING INDEX device_labels_value \(key=\? AND value=\? AND device_seq<\?\)\|SEARCH devices USING INTEGER PRIMARY KEY \(rowid=\?\)/;
  const pgByValue =
    /Index Only Scan Backward using device_labels_value|Index Only Scan using device_labels_value|Bitmap Index Scan on device_labels_value/;
  return [
    {
      name: 'a rare label (one device)',
      query: devices(ADMIN, { labels: [{ key: 'serial', value: 'n4242' }] }),
      sqlite: byValue,
      postgres: pgByValue,
    },
    {
      name: 'a label a thousandth of the devices carry',
      query: devices(ADMIN, { labels: [{ key: 'rack', value: 'r7' }] }),
      sqlite: byValue,
      postgres: pgByValue,
    },
    {
      name: 'a common label (every device)',
      query: devices(ADMIN, { labels: [{ key: 'fleet', value: 'main' }] }),
      sqlite: byValue,
      postgres: /Index Only Scan Backward using device_labels_value/,
    },
    {
      name: 'a common label, later page',
      query: devices(ADMIN, { labels: [{ key: 'fleet', value: 'main' }] }, '50000'),
      sqlite: byValue,
      postgres: /Index Only Scan Backward using device_labels_value/,
    },
    {
      name: 'a key with any value',
      query: devices(ADMIN, { labels: [{ key: 'site' }] }, '50000'),
      sqlite:
        /^SEARCH dl USING COVERING INDEX device_labels_key \(key=\? AND device_seq<\?\)\|SEARCH devices USING INTEGER PRIMARY KEY \(rowid=\?\)/,
      postgres: /Index Only Scan Backward using device_labels_key/,
    },
    {
      name: 'two labels and a status',
      query: devices(ADMIN, { labels: [{ key: 'line' }, { key: 'site', value: 's3' }], status: 'active' }),
      sqlite:
        /^SEARCH dl USING COVERING INDEX device_labels_value .*\|SEARCH l EXISTS USING PRIMARY KEY \(device_seq=\? AND key=\?\)$/,
      postgres: /using device_labels_value/,
    },
    {
      name: 'a label, scoped to an owner',
      query: devices(OWNER, { labels: [{ key: 'site', value: 's7' }] }, '50000'),
      sqlite:
        /^SEARCH devices USING INDEX devices_owner_seq \(owner=\? AND seq<\?\)\|SEARCH l EXISTS USING COVERING INDEX device_labels_value/,
      postgres: /devices_owner_seq|device_labels_value/,
    },
    {
      name: 'a label, by name',
      query: devices(ADMIN, { labels: [{ key: 'rack', value: 'r7' }], sort: 'name' }, '50000'),
      sqlite:
        /^SEARCH devices USING INDEX devices_name \(name_key>\?\).*SEARCH l EXISTS USING COVERING INDEX device_labels_value/,
      postgres: /devices_name|device_labels_value/,
    },
    {
      name: "a page's labels",
      query: { sql: labelsOfSeqsSql(3), params: [10, 20, 30] },
      sqlite: /^SEARCH device_labels USING PRIMARY KEY \(device_seq=\?\)$/,
      postgres: /device_labels_pkey/,
    },
  ];
}

test('SQLite EXPLAIN QUERY PLAN: each label filter searches an index, never scans a table, never sorts', async () => {
  await withSqliteSchema((db) => {
    for (const { name, query, sqlite } of lists(sqliteSearchDevices)) {
      const plan = sqlitePlan(db, query.sql);
      assert.match(plan, sqlite, `${name}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN (devices|dl|l|device_labels)( |$|\|)|TEMP B-TREE/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 100,000 devices with 5 labels each: each label filter reads an index, no sequential scan, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at)
        SELECT 'd' || i, 'Device ' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, ${T0}::bigint + i,
          ${T0}::bigint + (i * 7919 % 20000)::bigint * 60000
        FROM generate_series(1, ${DEVICES}) AS i`);
      await c.query(`INSERT INTO device_labels (device_seq, key, value)
        SELECT seq, l.key, CASE l.key WHEN 'fleet' THEN 'main' WHEN 'site' THEN 's' || (seq % 10)
          WHEN 'line' THEN 'l' || (seq % 100) WHEN 'rack' THEN 'r' || (seq % 1000) ELSE 'n' || seq END
        FROM devices CROSS JOIN (VALUES ('fleet'), ('site'), ('line'), ('rack'), ('serial')) AS l (key)`);
      await c.query('VACUUM ANALYZE devices');
      await c.query('VACUUM ANALYZE device_labels');
      for (const [i, { name, query, postgres }] of lists(pgSearchDevices).entries()) {
        const plan = await postgresPlan(c, `labels_${i}`, query.sql, query.params);
        assert.match(plan, postgres, `${name}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on (devices|device_labels)/, `${name}:\n${plan}`);
        // A scoped or by-name list may sort the few devices it reads through its own index.
        if (!name.includes('scoped') && !name.includes('by name'))
          assert.doesNotMatch(plan, /Sort/, `${name}:\n${plan}`);
        // A later page read from the label index reads devices from the cursor on as well: a merge
        // join without it walked every device newer than the cursor (page 10,000 of a million
        // devices: half a second, bench/results.md).
        if (name.includes('later page') || name.includes('any value'))
          assert.match(
            plan,
            /using devices_pkey on devices[^\n]*\n\s+Index Cond: \([^\n]*seq < '50000'/,
            `${name}:\n${plan}`,
          );
      }
    });
  },
);
