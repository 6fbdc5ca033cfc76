// The scope of an account with groups (docs/contract.md section 19) reads an index on both
// backends: a member's first pages of /devices and /runs walk each of its owners' index from the
// cursor and merge them in order, whatever the fleet; a row is checked against the account's
// groups by their primary key. PostgreSQL's plans at 100,000 devices owned by 10,000 accounts and
// 1,000 groups, an account in 20 groups; SQLite's from the schema (its planner does not weigh sizes).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { deviceLists, devicesSql } from '../../src/store/devices.ts';
import { runLists, runsSql, filteredRuns } from '../../src/store/runs.ts';
import { byOwners, counted, type Param, scope } from '../../src/store/sql.ts';
import { accountGroupsSql } from '../../src/store/account_groups.ts';
import { ownersOf } from '../../src/domain/owners.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const GROUPS = 20;
/** owner-7, a member of groups g0 … g19 (each the owner of about 9 devices, as each account is). */
const member: Viewer = {
  subject: 'oidc:owner-7',
  admin: false,
  groups: Array.from({ length: GROUPS }, (_, i) => `g${i}`),
};
const owners = ownersOf(member);
const PAGE = 51;
const TOP = Number.MAX_SAFE_INTEGER;

/** Each statement checked, as the store builds it on the backend (`limitEachArm`). */
function statements(limitEachArm: boolean): Record<string, { sql: string; args: Param[] }> {
  const db = { limitEachArm };
  const q = (built: { sql: string; params: Param[] }) => ({ sql: built.sql, args: built.params });
  return {
    devicesFirstPage: q(byOwners(db, owners, deviceLists.ownersDevices, [TOP], PAGE)),
    devicesLaterPage: q(byOwners(db, owners, deviceLists.ownersDevices, [60_000], PAGE)),
    runsFirstPage: q(byOwners(db, owners, runLists.ownersRuns, [TOP], PAGE)),
    runsFiltered: q(filteredRuns(member, { limit: 50 }, { privacy: 'full' }, { below: TOP, atLeast: 0 }, db)),
    // Owners holding few rows together (src/store/owners_reach.ts): their index ranges read whole, then sorted.
    devicesFew: { sql: deviceLists.ownersDevicesIn(owners.length), args: [...owners, TOP, PAGE] },
    runsFew: { sql: runLists.ownersRunsIn(owners.length), args: [...owners, TOP, PAGE] },
    deviceRow: { sql: devicesSql.visible, args: ['d77', ...scope(member)] },
    runRow: { sql: runsSql.visible, args: ['d77', 'r77', ...scope(member)] },
    groupsOf: { sql: accountGroupsSql.of, args: [member.subject] },
    counts: { sql: counted(member, runsSql.counts)[0], args: counted(member, runsSql.counts).slice(1) as Param[] },
  };
}

test("SQLite EXPLAIN QUERY PLAN: a member's pages merge each owner's index range (or read few whole), never scan", async () => {
  await withSqliteSchema((db) => {
    const arm = (index: string, table: string, covering = '') =>
      new RegExp(String.raw`SEARCH ${table} USING ${covering}INDEX ${index} \(owner=\? AND [^)]*seq<\?\)`, 'g');
    for (const [name, { sql }] of Object.entries(statements(false))) {
      const plan = sqlitePlan(db, sql);
      assert.doesNotMatch(plan, /SCAN (devices|runs|account_groups)\b/, `${name}: ${plan}`);
      if (name.endsWith('Few')) {
        // One IN-loop over the owner index, its rows (at most OWNERS_SCAN_ROWS) sorted.
        assert.match(
          plan,
          /^SEARCH (devices|runs) USING (COVERING )?INDEX (devices_owner_seq|runs_owner_list) \(owner=\? AND seq<\?\)\|USE TEMP B-TREE FOR ORDER BY$/,
          `${name}: ${plan}`,
        );
        continue;
      }
      assert.doesNotMatch(plan, /TEMP B-TREE/, `${name}: ${plan}`);
      if (name.startsWith('devices'))
        assert.equal(plan.match(arm('devices_owner_seq', 'devices'))?.length, GROUPS + 1, `${name}: ${plan}`);
      if (name.startsWith('runs'))
        assert.equal(
          plan.match(arm(String.raw`runs_owner_\w+`, 'runs', 'COVERING '))?.length,
          GROUPS + 1,
          `${name}: ${plan}`,
        );
      if (/Page|Filtered/.test(name)) assert.match(plan, /^MERGE \(UNION ALL\)/, `${name}: ${plan}`);
      if (name.endsWith('Row'))
        assert.match(plan, /LIST SUBQUERY \d+\|SEARCH g USING PRIMARY KEY \(subject=\?\)/, `${name}: ${plan}`);
      if (name === 'groupsOf') assert.match(plan, /^SEARCH account_groups USING PRIMARY KEY \(subject=\?\)$/, plan);
      if (name === 'counts')
        assert.match(plan, /SEARCH counts USING INDEX sqlite_autoindex_counts_1 \(owner=\?\)/, plan);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  "PostgreSQL EXPLAIN at 100,000 devices of 10,000 accounts and 1,000 groups: a member's pages stop after a page per owner",
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      // Device i: one in eleven owned by a group (g0 … g999), the others by an account (owner-0 … owner-9999).
      await c.query(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at)
        SELECT 'd' || i, 'device ' || i,
          CASE WHEN i % 11 = 0 THEN 'group:g' || (i / 11 % 1000) ELSE 'oidc:owner-' || (i % 10000) END,
          'c' || i, i FROM generate_series(1, 100000) AS i`);
      // Three runs a device, uploaded in turn.
      await c.query(`INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body)
        SELECT d.id, 'r' || k || '-' || d.seq, d.owner, 'text/plain', 'full', 10, 's', k * 100000 + d.seq, '\\x00'
        FROM devices d CROSS JOIN generate_series(1, 3) AS k ORDER BY k, d.seq`);
      // 10,000 accounts in 20 groups each.
      await c.query(`INSERT INTO account_groups (subject, group_name)
        SELECT 'oidc:owner-' || a, 'g' || ((a + j * 50) % 1000) FROM generate_series(0, 9999) AS a
        CROSS JOIN generate_series(0, 19) AS j ON CONFLICT DO NOTHING`);
      for (const t of ['devices', 'runs', 'counts', 'account_groups']) await c.query(`VACUUM ANALYZE ${t}`);
      const expected: Record<string, RegExp> = {
        devicesFirstPage: /Merge Append[\s\S]*Index Scan Backward using devices_owner_seq on devices/,
        devicesLaterPage: /Merge Append[\s\S]*Index Scan Backward using devices_owner_seq on devices/,
        runsFirstPage: /Merge Append[\s\S]*Index Only Scan Backward using runs_owner_list on runs/,
        runsFiltered: /Merge Append[\s\S]*Index Only Scan Backward using runs_owner_privacy_list on runs/,
        deviceRow: /Index Scan using devices_id_key on devices[\s\S]*account_groups_pkey/,
        runRow: /Index Scan using \w+ on runs[\s\S]*account_groups_pkey/,
        groupsOf: /Index Only Scan using account_groups_pkey on account_groups/,
        counts: /(Index Scan using|Bitmap Index Scan on) counts_pkey\b/,
      };
      for (const mode of ['auto', 'force_generic_plan']) {
        await c.query(`SET plan_cache_mode = ${mode}`);
        for (const [name, { sql, args }] of Object.entries(statements(true))) {
          // PostgreSQL's store always merges (postgres/store.ts): the generic plan of the IN form walks seq.
          if (name.endsWith('Few')) continue;
          const plan = await postgresPlan(c, `plan_${name}_${mode}`, sql, args);
          assert.match(plan, expected[name] as RegExp, `${name} (${mode}):\n${plan}`);
          assert.doesNotMatch(plan, /Seq Scan on (runs|devices|account_groups)/, `${name} (${mode}):\n${plan}`);
          if (/Page|Filtered/.test(name)) {
            assert.doesNotMatch(plan, /Sort\b(?! Key)/, `${name} (${mode}):\n${plan}`);
            assert.equal(
              plan.match(/-> {2}Limit/g)?.length,
              GROUPS + 1,
              `${name} (${mode}): a limit an owner:\n${plan}`,
            );
          }
        }
      }
      await c.query('RESET plan_cache_mode');
    });
  },
);
