// Owners (docs/contract.md section 19) read indexes on both backends: /groups walks the group names
// one index probe a step (account_groups_group, devices_group_owners) and reads each group's members
// and devices by their keys; a hand-over finds its devices and their runs by their keys; a leaving
// account's devices walk devices_owner_seq; the dashboard's count of devices of disabled accounts
// and the device list's owner_disabled start from the few disabled accounts (accounts_disabled).
// SQLite's plans are read from an empty store; PostgreSQL's at 100,000 devices owned by 10,000
// accounts and 1,000 groups, an account in 20 groups, 50 accounts disabled, after ANALYZE.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { filteredDevices } from '../../src/store/devices.ts';
import { handOverSql, ownersSql, postgresListed, sqliteListed } from '../../src/store/owners.ts';
import { pgSearchDevices } from '../../src/store/postgres/device_search.ts';
import type { Param, Sql } from '../../src/store/sql.ts';
import { sqliteSearchDevices } from '../../src/store/sqlite/device_search.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const ADMIN: Viewer = { subject: 'local:admin', admin: true };
const T0 = Date.UTC(2026, 0, 1);
const IDS = JSON.stringify(['d17', 'd42', 'd99']);

interface Case {
  name: string;
  sql: string;
  params: Param[];
  sqlite: RegExp;
  postgres: RegExp;
}

function cases(search: Sql['searchDevices'], listed: (column: string) => string): Case[] {
  const disabled = (before?: string) =>
    filteredDevices(
      { searchDevices: search } as Sql,
      ADMIN,
      { limit: 50, before },
      { staleBefore: T0, ownerDisabled: true },
    );
  const hand = handOverSql(listed, listed === sqliteListed ? '' : 'FOR UPDATE');
  return [
    {
      name: 'the group names after a cursor',
      sql: ownersSql.groupNames,
      params: ['g-0500', 50, 'group:g-0500', 50, 51],
      sqlite:
        /SEARCH account_groups USING COVERING INDEX account_groups_group \(group_name>\?\)[^]*SEARCH devices USING COVERING INDEX devices_group_owners \(owner>\?\)/,
      postgres: /account_groups_group on account_groups[^]*devices_group_owners on devices/,
    },
    {
      name: "a group's members",
      sql: ownersSql.members,
      params: ['g-0500', 6],
      sqlite:
        /SEARCH g USING COVERING INDEX account_groups_group \(group_name=\?\)\|SEARCH a USING INDEX sqlite_autoindex_accounts_1/,
      postgres: /account_groups_group on account_groups g[^]*accounts_pkey on accounts a/,
    },
    {
      name: "a group's member count",
      sql: ownersSql.memberCount,
      params: ['g-0500'],
      sqlite: /SEARCH g USING COVERING INDEX account_groups_group \(group_name=\?\)/,
      postgres: /account_groups_group on account_groups g/,
    },
    {
      name: "a group's devices, from the counters",
      sql: ownersSql.groupDevices,
      params: ['group:g-0500'],
      sqlite: /SEARCH counts USING INDEX sqlite_autoindex_counts_1 \(owner=\?\)/,
      postgres: /counts_pkey on counts/,
    },
    {
      name: 'whether a group is known',
      sql: ownersSql.groupKnown,
      params: ['g-0500', 'group:g-0500'],
      sqlite: /account_groups_group \(group_name=\?\)[^]*devices_group_owners \(owner=\?\)/,
      postgres: /account_groups_group on account_groups[^]*devices_group_owners on devices/,
    },
    {
      name: 'the devices of disabled accounts, counted',
      sql: ownersSql.disabledOwnersDevices,
      params: [],
      sqlite: /SEARCH counts USING INDEX sqlite_autoindex_counts_1 \(owner=\?\)[^]*accounts_disabled/,
      postgres: /accounts_disabled on accounts[^]*counts_pkey on counts/,
    },
    {
      name: 'the devices of disabled accounts, listed',
      sql: disabled().sql,
      params: disabled().params,
      // Each disabled account's devices by devices_owner_seq; they are sorted together (they are few: they wait to be handed over).
      sqlite: /SEARCH devices USING INDEX devices_owner_seq \(owner=\?\)[^]*accounts_disabled/,
      // PostgreSQL weighs the two: each disabled account's devices by devices_owner_seq, or the
      // devices newest first, each checked against accounts_disabled (a page reads a share of them).
      postgres: /accounts_disabled on accounts/,
    },
    {
      name: 'the devices of disabled accounts, a later page',
      sql: disabled('50000').sql,
      params: disabled('50000').params,
      sqlite: /SEARCH devices USING INDEX devices_owner_seq \(owner=\? AND seq<\?\)[^]*accounts_disabled/,
      // PostgreSQL weighs the two: each disabled account's devices by devices_owner_seq, or the
      // devices newest first, each checked against accounts_disabled (a page reads a share of them).
      postgres: /accounts_disabled on accounts/,
    },
    {
      name: "a leaving account's first devices",
      sql: ownersSql.ownedBy,
      params: ['oidc:owner-7', 100],
      sqlite: /^SEARCH devices USING INDEX devices_owner_seq \(owner=\?\)$/,
      // An owner's index: with ten devices an owner, PostgreSQL may read them by any of its three and sort them.
      postgres: /on devices_owner_\w+/,
    },
    {
      name: 'a hand-over locks its devices by their key',
      sql: hand.lock,
      params: [IDS, 'group:g-0001'],
      sqlite: /SEARCH devices USING INDEX sqlite_autoindex_devices_1 \(id=\?\)/,
      postgres: /devices_id_key on devices|devices_pkey on devices/,
    },
    {
      name: 'a hand-over moves its devices by their key',
      sql: hand.setOwner,
      params: ['group:g-0001', IDS],
      sqlite: /SEARCH devices USING (COVERING )?INDEX sqlite_autoindex_devices_1 \(id=\?\)/,
      postgres: /devices_id_key on devices|devices_pkey on devices/,
    },
    {
      name: "a hand-over moves its devices' runs by their key",
      sql: hand.moveRuns,
      params: ['group:g-0001', IDS, 'group:g-0001'],
      sqlite: /SEARCH runs USING INDEX \w+ \(device_id=\?\)/,
      postgres: /Index Scan using \w+ on runs[^]*Index Cond: \(device_id = ANY/,
    },
  ];
}

test('SQLite EXPLAIN QUERY PLAN: groups, hand-overs and the devices of disabled accounts read indexes, never a table', async () => {
  await withSqliteSchema((db) => {
    for (const { name, sql, sqlite } of cases(sqliteSearchDevices, sqliteListed)) {
      const plan = sqlitePlan(db, sql);
      assert.match(plan, sqlite, `${name}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN (devices|runs|accounts|account_groups|counts|g|a|c)(\||$)/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 100,000 devices, 10,000 accounts in 20 of 1,000 groups each: indexes, no sequential scan',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO accounts (subject, display, last_sign_in_at, disabled_at)
        SELECT 'oidc:owner-' || i, 'Owner ' || i, i, CASE WHEN i % 200 = 3 THEN i END FROM generate_series(1, 10000) AS i`);
      await c.query(`INSERT INTO account_groups (subject, group_name)
        SELECT 'oidc:owner-' || i, 'g-' || lpad(((i * 7 + k * 50) % 1000)::text, 4, '0')
        FROM generate_series(1, 10000) AS i, generate_series(0, 19) AS k ON CONFLICT DO NOTHING`);
      // A tenth of the devices belong to groups, the others to accounts.
      await c.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at)
        SELECT 'd' || i, 'Device ' || i, 'device ' || i,
          CASE WHEN i % 10 = 0 THEN 'group:g-' || lpad((i % 1000)::text, 4, '0') ELSE 'oidc:owner-' || (i % 10000) END,
          'c' || i, ${T0}::bigint + i, ${T0}::bigint + i FROM generate_series(1, 100000) AS i`);
      await c.query(`INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body)
        SELECT 'd' || (i % 100000 + 1), 'r' || i, 'x', 'text/plain', 'full', 1, 's', ${T0}::bigint + i, ''::bytea
        FROM generate_series(1, 200000) AS i`);
      for (const table of ['accounts', 'account_groups', 'devices', 'runs', 'counts'])
        await c.query(`VACUUM ANALYZE ${table}`);
      for (const [i, { name, sql, params, postgres }] of cases(pgSearchDevices, postgresListed).entries()) {
        const plan = await postgresPlan(c, `owners_${i}`, sql, params);
        assert.match(plan, postgres, `${name}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on (devices|runs|accounts|account_groups|counts)/, `${name}:\n${plan}`);
      }
    });
  },
);
