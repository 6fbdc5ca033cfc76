// The SCIM store's statements (docs/contract.md section 20) at 10,000 users and 1,000 groups (an
// account in 20 of them), on both backends: every filter a provider sends reads its index
// (userName by its key, externalId, displayName), a group's members and an account's groups read
// the membership keys, and a rename finds the group's devices, runs and tokens by their owner.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { scimListSql, scimSql } from '../../src/store/scim.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const USERS = 10_000;
const GROUPS = 1_000;
const PER_USER = 20;

/** Every statement checked: its SQL, its arguments, and the index each backend must read. */
const checked = [
  {
    name: 'by_user_name',
    sql: scimListSql.users('WHERE user_name_key = ?'),
    args: ['user-77@example.com', 100, 0],
    index: 'scim_users_user_name_key',
    table: 'scim_users',
  },
  {
    name: 'count_user_name',
    sql: scimListSql.usersCount('WHERE user_name_key = ?'),
    args: ['user-77@example.com'],
    index: 'scim_users_user_name_key',
    table: 'scim_users',
  },
  {
    name: 'by_external_id',
    sql: scimListSql.users('WHERE external_id = ?'),
    args: ['ext-77', 100, 0],
    index: 'scim_users_external_id',
    table: 'scim_users',
  },
  {
    name: 'by_display_name',
    sql: scimListSql.users('WHERE display_name = ?'),
    args: ['User 77', 100, 0],
    index: 'scim_users_display_name',
    table: 'scim_users',
  },
  {
    name: 'users_page',
    sql: scimListSql.users(''),
    args: [100, 0],
    index: 'scim_users_user_name_key',
    table: 'scim_users',
  },
  {
    name: 'group_by_name',
    sql: scimListSql.groups('WHERE display_name = ?'),
    args: ['group-7', 100, 0],
    index: 'scim_groups_display_name',
    table: 'scim_groups',
  },
  {
    name: 'group_by_external',
    sql: scimListSql.groups('WHERE external_id = ?'),
    args: ['gext-7', 100, 0],
    index: 'scim_groups_external_id',
    table: 'scim_groups',
  },
  {
    name: 'by_subject',
    sql: scimSql.userBySubject,
    args: ['oidc:user-77'],
    index: 'scim_users_subject',
    table: 'scim_users',
  },
  {
    name: 'members',
    sql: scimSql.members,
    args: ['g-7'],
    index: 'scim_members_pkey|USING PRIMARY KEY (group_id=?)',
    table: 'scim_members',
  },
  {
    name: 'groups_of',
    sql: scimSql.groupsOfSubject,
    args: ['oidc:user-77'],
    index: 'scim_members_user',
    table: 'scim_members',
  },
  {
    name: 'refill',
    sql: scimSql.refillGroupsOfUser,
    args: ['u-77'],
    index: 'scim_members_user',
    table: 'scim_members',
  },
  {
    name: 'move_tokens',
    sql: scimSql.moveEnrollTokens,
    args: ['group:b', 'group:a'],
    index: 'enroll_tokens_owner',
    table: 'enroll_tokens',
  },
] as const;

const fill = [
  `INSERT INTO scim_users (id, user_name, user_name_key, external_id, display_name, active, attributes, subject, created_at, updated_at, version)
    SELECT 'u-' || i, 'user-' || i || '@example.com', 'user-' || i || '@example.com', 'ext-' || i, 'User ' || i, 1, '{}',
      CASE WHEN i % 2 = 0 THEN 'oidc:user-' || i END, i, i, 1 FROM series`,
  `INSERT INTO scim_groups (id, display_name, external_id, created_at, updated_at, version)
    SELECT 'g-' || i, 'group-' || i, 'gext-' || i, i, i, 1 FROM series WHERE i <= ${GROUPS}`,
  `INSERT INTO scim_members (group_id, user_id)
    SELECT 'g-' || ((s.i * 7 + k.i) % ${GROUPS} + 1), 'u-' || s.i FROM series s, series k WHERE k.i <= ${PER_USER}`,
];

test(`SQLite at ${USERS} users and ${GROUPS} groups: every SCIM filter and join reads its index`, async () => {
  await withSqliteSchema((db: DatabaseSync) => {
    db.exec(`CREATE TEMP TABLE series (i INTEGER PRIMARY KEY)`);
    db.exec(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${USERS}) INSERT INTO series SELECT i FROM n`,
    );
    for (const sql of fill) db.exec(sql);
    db.exec('ANALYZE');
    for (const c of checked) {
      const plan = sqlitePlan(db, c.sql);
      const indexes = c.index.split('|');
      assert.ok(
        indexes.some((i) => plan.includes(i)),
        `${c.name}: ${plan}`,
      );
      assert.doesNotMatch(plan, new RegExp(`SCAN ${c.table}(?! USING)`), `${c.name}: ${plan}`);
      // The unfiltered page walks the key's order; a filter's few rows may be sorted.
      if (c.name === 'users_page') assert.doesNotMatch(plan, /USE TEMP B-TREE FOR ORDER BY/, plan);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  `PostgreSQL at ${USERS} users and ${GROUPS} groups: every SCIM filter and join reads its index`,
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c: pg.Client) => {
      await c.query(`CREATE TEMP TABLE series AS SELECT i FROM generate_series(1, ${USERS}) AS i`);
      for (const sql of fill) await c.query(sql.replaceAll('series s, series k', 'series s, series k'));
      await c.query('ANALYZE');
      for (const q of checked) {
        const plan = await postgresPlan(c, `plan_${q.name}`, q.sql, q.args);
        const indexes = q.index.split('|');
        assert.ok(
          indexes.some((i) => plan.includes(i)),
          `${q.name}: ${plan}`,
        );
        assert.doesNotMatch(plan, new RegExp(`Seq Scan on ${q.table}`), `${q.name}: ${plan}`);
      }
    });
  },
);
