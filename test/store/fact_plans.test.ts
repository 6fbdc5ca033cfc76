// The device list's fact filters (docs/contract.md section 16) read an index on both backends, no
// scan of devices, as labels do: an administrator's newest-first list is read from the fact index
// itself, walked backwards from the cursor, whether the fact is rare or common; any other list
// walks its own index and checks each fact on device_facts' primary key. A page's facts, one
// device's, a collection from a fact and the dashboard's client versions read indexes too. SQLite's
// plans are read from an empty store; PostgreSQL's at 100,000 devices with 5 facts each.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { filteredDevices } from '../../src/store/devices.ts';
import { factsOfSeqsSql, factsSql } from '../../src/store/facts.ts';
import { targetsInsert } from '../../src/store/collections.ts';
import { pgSearchDevices } from '../../src/store/postgres/device_search.ts';
import { numbered, type Param, type Sql } from '../../src/store/sql.ts';
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
 * Each device i reports os=<linux|darwin|win32 by i % 3>, arch=x64 (every device: the common
 * fact), os_version=<i % 50>, client_version=1.<i % 10>.0 and hostname=host-<i> (one device: the
 * rarest); it carries the labels fleet=main and site=s<i % 10>.
 */
async function lists(
  search: Sql['searchDevices'],
): Promise<Array<{ name: string; query: Query; sqlite: RegExp; postgres: RegExp }>> {
  const devices = (viewer: Viewer, filter: Partial<DeviceFilter>, before?: string) =>
    filteredDevices({ searchDevices: search } as Sql, viewer, { limit: 50, before }, { staleBefore: T0, ...filter });
  const byValue =
    /^SEARCH df USING COVERING INDEX device_facts_value \(key=\? AND value=\? AND device_seq<\?\)\|SEARCH devices USING INTEGER PRIMARY KEY \(rowid=\?\)/;
  const pgByValue =
    /Index Only Scan Backward using device_facts_value|Index Only Scan using device_facts_value|Bitmap Index Scan on device_facts_value/;
  const reach = await targetsInsert(
    { searchDevices: search } as Sql,
    ADMIN,
    {
      id: 'c_plan',
      createdBy: 'local:admin',
      createdAt: 1,
      privacy: 'minimal',
      reason: 'plan',
      expiresAt: 2,
    },
    { filter: { facts: [{ key: 'hostname', value: 'host-4242' }], staleBefore: 0 } },
  );
  return [
    {
      name: 'a rare fact (one device)',
      query: devices(ADMIN, { facts: [{ key: 'hostname', value: 'host-4242' }] }),
      sqlite: byValue,
      postgres: pgByValue,
    },
    {
      name: 'a fact a tenth of the devices reported',
      query: devices(ADMIN, { facts: [{ key: 'client_version', value: '1.7.0' }] }),
      sqlite: byValue,
      postgres: pgByValue,
    },
    {
      name: 'a common fact (every device)',
      query: devices(ADMIN, { facts: [{ key: 'arch', value: 'x64' }] }),
      sqlite: byValue,
      postgres: /Index Only Scan Backward using device_facts_value/,
    },
    {
      name: 'a common fact, later page',
      query: devices(ADMIN, { facts: [{ key: 'arch', value: 'x64' }] }, '50000'),
      sqlite: byValue,
      postgres: /Index Only Scan Backward using device_facts_value/,
    },
    {
      name: 'two facts and a status',
      query: devices(ADMIN, {
        facts: [
          { key: 'os', value: 'linux' },
          { key: 'client_version', value: '1.3.0' },
        ],
        status: 'active',
      }),
      sqlite:
        /^SEARCH df USING COVERING INDEX device_facts_value .*\|SEARCH f EXISTS USING (COVERING INDEX device_facts_value|PRIMARY KEY) \(.*device_seq=\?.*\)$/,
      postgres: /using device_facts_value/,
    },
    {
      name: 'a fact and a label with a value (the label drives)',
      query: devices(ADMIN, { facts: [{ key: 'os', value: 'linux' }], labels: [{ key: 'site', value: 's3' }] }),
      sqlite:
        /^SEARCH dl USING COVERING INDEX device_labels_value .*\|SEARCH f EXISTS USING (COVERING INDEX device_facts_value|PRIMARY KEY) \(.*device_seq=\?.*\)$/,
      postgres: /using device_labels_value/,
    },
    {
      name: 'a fact and a label key (the fact drives)',
      query: devices(ADMIN, { facts: [{ key: 'os', value: 'linux' }], labels: [{ key: 'site' }] }, '50000'),
      sqlite: /^SEARCH df USING COVERING INDEX device_facts_value .*\|SEARCH l EXISTS USING PRIMARY KEY/,
      postgres: /using device_facts_value/,
    },
    {
      name: 'a fact, scoped to an owner',
      query: devices(OWNER, { facts: [{ key: 'os', value: 'linux' }] }, '50000'),
      sqlite:
        /^SEARCH devices USING INDEX devices_owner_seq \(owner=\? AND seq<\?\)\|SEARCH f EXISTS USING (COVERING INDEX device_facts_value|PRIMARY KEY) \(.*device_seq=\?.*\)$/,
      postgres: /devices_owner_seq|device_facts_value/,
    },
    {
      name: 'a fact, by name',
      query: devices(ADMIN, { facts: [{ key: 'client_version', value: '1.7.0' }], sort: 'name' }, '50000'),
      sqlite:
        /^SEARCH devices USING INDEX devices_name \(name_key>\?\).*SEARCH f EXISTS USING (COVERING INDEX device_facts_value|PRIMARY KEY)/,
      postgres: /devices_name|device_facts_value|device_facts_pkey/,
    },
    {
      name: "a page's facts",
      query: { sql: factsOfSeqsSql(3), params: [10, 20, 30] },
      sqlite:
        /^SEARCH r USING INTEGER PRIMARY KEY \(rowid=\?\)\|SEARCH f USING PRIMARY KEY \(device_seq=\?\)( LEFT-JOIN)?$/,
      postgres: /device_fact_reports_pkey/,
    },
    {
      name: "one device's facts",
      query: { sql: factsSql.ofSeq, params: [42] },
      sqlite:
        /^SEARCH r USING INTEGER PRIMARY KEY \(rowid=\?\)\|SEARCH f USING PRIMARY KEY \(device_seq=\?\)( LEFT-JOIN)?$/,
      postgres: /device_fact_reports_pkey/,
    },
    {
      name: 'a collection from a fact',
      query: { sql: reach.sql.slice(reach.sql.indexOf('SELECT')), params: reach.params },
      sqlite: /device_facts_value/,
      postgres: /device_facts_value/,
    },
    {
      name: 'the dashboard: devices by client version',
      query: { sql: factsSql.valueCounts, params: ['client_version', 'client_version', 10] },
      // Every device's value from the fact index alone, less the revoked and waiting devices' (their
      // partial indexes, then each one's fact by the primary key).
      sqlite:
        /SEARCH device_facts USING COVERING INDEX device_facts_value \(key=\?\).*SCAN devices USING INDEX devices_revoked.*SCAN devices USING COVERING INDEX devices_pending.*SEARCH f USING PRIMARY KEY \(device_seq=\? AND key=\?\)/,
      postgres: /Index Only Scan using device_facts_value(.|\n)*devices_revoked(.|\n)*devices_pending/,
    },
  ];
}

test('SQLite EXPLAIN QUERY PLAN: each fact filter searches an index, never scans a table', async () => {
  const checked = await lists(sqliteSearchDevices);
  await withSqliteSchema((db) => {
    for (const { name, query, sqlite } of checked) {
      const plan = sqlitePlan(db, query.sql);
      assert.match(plan, sqlite, `${name}: ${plan}`);
      // The dashboard reads the revoked and waiting devices from their partial indexes whole.
      assert.doesNotMatch(
        plan.replace(/SCAN devices USING (COVERING )?INDEX devices_(revoked|pending)/g, ''),
        /SCAN (devices|df|dl|d|f|l|r|device_facts|device_fact_reports)( |$|\|)/,
        `${name}: ${plan}`,
      );
      // Only the dashboard's count sorts, and then only its few distinct values.
      if (!name.startsWith('the dashboard')) assert.doesNotMatch(plan, /TEMP B-TREE/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 100,000 devices with 5 facts each: each fact filter reads an index, no sequential scan, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    const checked = await lists(pgSearchDevices);
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at)
        SELECT 'd' || i, 'Device ' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, ${T0}::bigint + i,
          ${T0}::bigint + (i * 7919 % 20000)::bigint * 60000
        FROM generate_series(1, ${DEVICES}) AS i`);
      await c.query(`INSERT INTO device_facts (device_seq, key, value)
        SELECT seq, f.key, CASE f.key WHEN 'arch' THEN 'x64'
          WHEN 'os' THEN (ARRAY['linux', 'darwin', 'win32'])[seq % 3 + 1] WHEN 'os_version' THEN (seq % 50)::text
          WHEN 'client_version' THEN '1.' || (seq % 10) || '.0' ELSE 'host-' || seq END
        FROM devices CROSS JOIN (VALUES ('arch'), ('os'), ('os_version'), ('client_version'), ('hostname')) AS f (key)`);
      await c.query(`INSERT INTO device_fact_reports (device_seq, reported_at) SELECT seq, ${T0} FROM devices`);
      await c.query(`INSERT INTO device_labels (device_seq, key, value)
        SELECT seq, l.key, CASE l.key WHEN 'fleet' THEN 'main' ELSE 's' || (seq % 10) END
        FROM devices CROSS JOIN (VALUES ('fleet'), ('site')) AS l (key)`);
      for (const table of ['devices', 'device_facts', 'device_fact_reports', 'device_labels'])
        await c.query(`VACUUM ANALYZE ${table}`);
      for (const [i, { name, query, postgres }] of checked.entries()) {
        const plan = await postgresPlan(c, `facts_${i}`, query.sql, query.params);
        assert.match(plan, postgres, `${name}:\n${plan}`);
        assert.doesNotMatch(
          plan,
          /Seq Scan on (devices|device_facts|device_fact_reports|device_labels)/,
          `${name}:\n${plan}`,
        );
        // A scoped or by-name list may sort the few devices it reads through its own index; the
        // dashboard sorts its few distinct values; a collection reads its devices in seq order.
        if (!/scoped|by name|dashboard|collection/.test(name)) assert.doesNotMatch(plan, /Sort/, `${name}:\n${plan}`);
        // A later page read from the fact index reads devices from the cursor on as well.
        if (name.includes('later page') || name.includes('label key'))
          assert.match(
            plan,
            /using devices_pkey on devices[^\n]*\n\s+Index Cond: \([^\n]*seq < '50000'/,
            `${name}:\n${plan}`,
          );
      }
      // The dashboard's count at this size, measured (each admin view of the dashboard runs it).
      const start = performance.now();
      await c.query(numbered(factsSql.valueCounts), ['client_version', 'client_version', 10]);
      const ms = performance.now() - start;
      process.stdout.write(`# PostgreSQL: devices by client version at ${DEVICES} devices: ${ms.toFixed(0)} ms\n`);
    });
  },
);
