/**
 * SCIM users, groups and their members (docs/contract.md section 20; migration 'scim'). Lists and
 * filters read an index (user_name_key, external_id, display_name); every change is one guarded
 * transaction (each backend's scim.ts): its first statement must find its row (at the version
 * read, for a replacement), or nothing is written. In the same transaction the groups of every
 * linked account it touches are written again from its memberships (account_groups, section 19),
 * and a renamed group's devices, runs and enrollment tokens follow it to `group:<new name>`, and
 * the change's webhook notes are written (docs/contract.md section 13): a delivery announces a
 * change that committed, and every one that did.
 */
import { accountGroupsSql } from './account_groups.ts';
import type { Note } from '../events/note.ts';
import type { Param, Row, Sql } from './sql.ts';
import type { ScimStore } from './store.ts';
import { MAX_ACCOUNT_GROUPS } from '../domain/owners.ts';
import {
  type ScimGroup,
  type ScimGroupFilter,
  type ScimMember,
  type ScimUser,
  type ScimUserFilter,
  type ScimWriteOutcome,
  userNameKey,
} from '../domain/scim.ts';

export type Statement = readonly [string, Param[]];

/**
 * The backend's guarded transaction: `guard` runs first (a change with RETURNING); when it returns
 * no row, 'missed' and nothing is written; a uniqueness conflict anywhere, 'taken'. The statements
 * `then` makes of its rows follow, then the webhook notes (outbox.ts noteStatement), last, so they
 * are written only with a change that commits.
 */
export type ScimWrite = (
  guard: Statement,
  then: (rows: Row[]) => Statement[],
  notes: readonly Note[],
) => Promise<ScimWriteOutcome>;

const USER_COLUMNS =
  'id, user_name, external_id, display_name, active, attributes, subject, created_at, updated_at, version';

export const scimSql = {
  user: `SELECT ${USER_COLUMNS} FROM scim_users WHERE id = ?`,
  userByKey: `SELECT ${USER_COLUMNS} FROM scim_users WHERE user_name_key = ?`,
  userBySubject: `SELECT ${USER_COLUMNS} FROM scim_users WHERE subject = ?`,
  insertUser: `INSERT INTO scim_users (id, user_name, user_name_key, external_id, display_name, active, attributes,
    created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1) RETURNING id`,
  replaceUser: `UPDATE scim_users SET user_name = ?, user_name_key = ?, external_id = ?, display_name = ?, active = ?,
    attributes = ?, updated_at = ?, version = version + 1 WHERE id = ? AND version = ? RETURNING id`,
  deleteUser: 'DELETE FROM scim_users WHERE id = ? RETURNING subject',
  linkUser: 'UPDATE scim_users SET subject = ? WHERE id = ? AND subject IS NULL RETURNING id',
  userExists: 'SELECT id FROM scim_users WHERE id = ?',
  unlinked: `SELECT ${USER_COLUMNS} FROM scim_users WHERE subject IS NULL ORDER BY user_name_key LIMIT ?`,
  unlinkedCount: 'SELECT count(*) AS n FROM scim_users WHERE subject IS NULL',

  group: 'SELECT id, display_name, external_id, created_at, updated_at, version FROM scim_groups WHERE id = ?',
  insertGroup: `INSERT INTO scim_groups (id, display_name, external_id, created_at, updated_at, version)
    VALUES (?, ?, ?, ?, ?, 1) RETURNING id`,
  replaceGroup: `UPDATE scim_groups SET display_name = ?, external_id = ?, updated_at = ?, version = version + 1
    WHERE id = ? AND version = ? RETURNING id`,
  deleteGroup: 'DELETE FROM scim_groups WHERE id = ? RETURNING id',
  members: `SELECT u.id, u.user_name, u.display_name FROM scim_members m JOIN scim_users u ON u.id = m.user_id
    WHERE m.group_id = ? ORDER BY u.user_name_key`,
  addMember: 'INSERT INTO scim_members (group_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
  addMembers: `INSERT INTO scim_members (group_id, user_id) VALUES ${Array.from({ length: 100 }, () => '(?, ?)').join(', ')}
    ON CONFLICT DO NOTHING`,
  removeMember: 'DELETE FROM scim_members WHERE group_id = ? AND user_id = ?',
  removeMembers: `DELETE FROM scim_members WHERE group_id = ? AND user_id IN (${Array.from({ length: 100 }, () => '?').join(', ')})`,
  removeMembersOf: 'DELETE FROM scim_members WHERE group_id = ?',
  removeMemberships: 'DELETE FROM scim_members WHERE user_id = ?',
  groupsOfSubject: `SELECT g.display_name FROM scim_users u JOIN scim_members m ON m.user_id = u.id
    JOIN scim_groups g ON g.id = m.group_id WHERE u.subject = ? ORDER BY g.display_name LIMIT ${MAX_ACCOUNT_GROUPS}`,

  /** A linked account's groups, written again from its memberships (the first MAX_ACCOUNT_GROUPS by name). */
  clearGroupsOfUser: `DELETE FROM account_groups WHERE subject = (SELECT subject FROM scim_users WHERE id = ?)`,
  refillGroupsOfUser: `INSERT INTO account_groups (subject, group_name)
    SELECT u.subject, g.display_name FROM scim_users u JOIN scim_members m ON m.user_id = u.id
    JOIN scim_groups g ON g.id = m.group_id WHERE u.id = ? AND u.subject IS NOT NULL
    ORDER BY g.display_name LIMIT ${MAX_ACCOUNT_GROUPS}`,
  /** The group's name leaves its members' accounts (before a change of its name or members, or its deletion). */
  leaveAccounts: `DELETE FROM account_groups WHERE group_name = ? AND subject IN
    (SELECT u.subject FROM scim_members m JOIN scim_users u ON u.id = m.user_id WHERE m.group_id = ? AND u.subject IS NOT NULL)`,
  /**
   * The group's name joins its members' accounts (after the change): an account already holding
   * MAX_ACCOUNT_GROUPS groups gets no more (docs/contract.md section 19).
   */
  joinAccounts: `INSERT INTO account_groups (subject, group_name)
    SELECT u.subject, ? FROM scim_members m JOIN scim_users u ON u.id = m.user_id
    WHERE m.group_id = ? AND u.subject IS NOT NULL
      AND (SELECT count(*) FROM account_groups a WHERE a.subject = u.subject) < ${MAX_ACCOUNT_GROUPS}
    ON CONFLICT DO NOTHING`,
  moveDevices: 'UPDATE devices SET owner = ? WHERE owner = ?',
  moveRuns: 'UPDATE runs SET owner = ? WHERE owner = ?',
  moveEnrollTokens: 'UPDATE enroll_tokens SET owner = ? WHERE owner = ?',
} as const;

/** The filter's equalities as a condition on the indexed columns, in a fixed order. */
function userWhere(f: ScimUserFilter): [string, Param[]] {
  const parts: Array<[string, Param]> = [];
  if (f.id !== undefined) parts.push(['id = ?', f.id]);
  if (f.userName !== undefined) parts.push(['user_name_key = ?', userNameKey(f.userName)]);
  if (f.externalId !== undefined) parts.push(['external_id = ?', f.externalId]);
  if (f.displayName !== undefined) parts.push(['display_name = ?', f.displayName]);
  return where(parts);
}

function groupWhere(f: ScimGroupFilter): [string, Param[]] {
  const parts: Array<[string, Param]> = [];
  if (f.id !== undefined) parts.push(['id = ?', f.id]);
  if (f.displayName !== undefined) parts.push(['display_name = ?', f.displayName]);
  if (f.externalId !== undefined) parts.push(['external_id = ?', f.externalId]);
  return where(parts);
}

function where(parts: ReadonlyArray<[string, Param]>): [string, Param[]] {
  return parts.length === 0 ? ['', []] : [`WHERE ${parts.map(([c]) => c).join(' AND ')}`, parts.map(([, p]) => p)];
}

export const scimListSql = {
  users: (w: string) => `SELECT ${USER_COLUMNS} FROM scim_users ${w} ORDER BY user_name_key LIMIT ? OFFSET ?`,
  usersCount: (w: string) => `SELECT count(*) AS n FROM scim_users ${w}`,
  groups: (w: string) =>
    `SELECT id, display_name, external_id, created_at, updated_at, version FROM scim_groups ${w}
    ORDER BY display_name LIMIT ? OFFSET ?`,
  groupsCount: (w: string) => `SELECT count(*) AS n FROM scim_groups ${w}`,
};

export function userFrom(r: Row): ScimUser {
  return {
    id: r.id as string,
    userName: r.user_name as string,
    externalId: (r.external_id as string | null) ?? null,
    displayName: (r.display_name as string | null) ?? null,
    active: Number(r.active) === 1,
    attributes: JSON.parse(r.attributes as string) as ScimUser['attributes'],
    subject: (r.subject as string | null) ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    version: Number(r.version),
  };
}

function groupFrom(r: Row): ScimGroup {
  return {
    id: r.id as string,
    displayName: r.display_name as string,
    externalId: (r.external_id as string | null) ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    version: Number(r.version),
  };
}

/** The user's indexed columns and its attributes, in the order insertUser and replaceUser take them. */
function userColumns(u: Pick<ScimUser, 'userName' | 'externalId' | 'displayName' | 'active' | 'attributes'>): Param[] {
  return [
    u.userName,
    userNameKey(u.userName),
    u.externalId,
    u.displayName,
    u.active ? 1 : 0,
    JSON.stringify(u.attributes),
  ];
}

/** The statements adding (or removing) `members` of a group: a hundred a statement, then one by one. */
function memberStatements(group: string, members: readonly string[], add: boolean): Statement[] {
  const out: Statement[] = [];
  let i = 0;
  for (; i + MEMBERS_A_STATEMENT <= members.length; i += MEMBERS_A_STATEMENT) {
    const chunk = members.slice(i, i + MEMBERS_A_STATEMENT);
    out.push(add ? [scimSql.addMembers, chunk.flatMap((m) => [group, m])] : [scimSql.removeMembers, [group, ...chunk]]);
  }
  for (const m of members.slice(i)) out.push([add ? scimSql.addMember : scimSql.removeMember, [group, m]]);
  return out;
}

/** How many members one statement adds or removes: one statement's shape, so PostgreSQL prepares it once. */
const MEMBERS_A_STATEMENT = 100;

/** A linked account's groups written again from its SCIM memberships. */
function refreshGroups(userId: string): Statement[] {
  return [
    [scimSql.clearGroupsOfUser, [userId]],
    [scimSql.refillGroupsOfUser, [userId]],
  ];
}

export function scimStore(db: Sql, write: ScimWrite): ScimStore {
  async function members(groupId: string): Promise<ScimMember[]> {
    return (await db.all(scimSql.members, groupId)).map((r) => ({
      id: r.id as string,
      userName: r.user_name as string,
      displayName: (r.display_name as string | null) ?? null,
    }));
  }

  return {
    async scimUsers(filter, page) {
      const [w, params] = userWhere(filter);
      const total = Number((await db.get(scimListSql.usersCount(w), ...params))?.n);
      const rows = total === 0 ? [] : await db.all(scimListSql.users(w), ...params, page.count, page.offset);
      return { total, items: rows.map(userFrom) };
    },
    async scimUser(id) {
      const r = await db.get(scimSql.user, id);
      return r && userFrom(r);
    },
    async scimUserByUserName(userName) {
      const r = await db.get(scimSql.userByKey, userNameKey(userName));
      return r && userFrom(r);
    },
    async scimUserOfSubject(subject) {
      const r = await db.get(scimSql.userBySubject, subject);
      return r && userFrom(r);
    },
    async createScimUser(u, notes = []) {
      return write([scimSql.insertUser, [u.id, ...userColumns(u), u.createdAt, u.createdAt]], () => [], notes);
    },
    async replaceScimUser(u, expectedVersion, notes = []) {
      return write([scimSql.replaceUser, [...userColumns(u), u.updatedAt, u.id, expectedVersion]], () => [], notes);
    },
    async deleteScimUser(id, notes = []) {
      return write(
        [scimSql.deleteUser, [id]],
        (rows) => {
          const subject = rows[0]?.subject as string | null | undefined;
          const then: Statement[] = [[scimSql.removeMemberships, [id]]];
          if (subject) then.push([accountGroupsSql.clear, [subject]]);
          return then;
        },
        notes,
      );
    },
    async linkScimUser(id, subject, notes = []) {
      return (await write([scimSql.linkUser, [subject, id]], () => refreshGroups(id), notes)) === 'done';
    },
    async missingScimUsers(ids) {
      const missing: string[] = [];
      for (const id of new Set(ids)) if ((await db.get(scimSql.userExists, id)) === undefined) missing.push(id);
      return missing;
    },
    async scimGroupsOfSubject(subject) {
      return (await db.all(scimSql.groupsOfSubject, subject)).map((r) => r.display_name as string);
    },
    async unlinkedScimUsers(limit) {
      const total = Number((await db.get(scimSql.unlinkedCount))?.n);
      return { total, items: (await db.all(scimSql.unlinked, limit)).map(userFrom) };
    },

    async scimGroups(filter, page, withMembers) {
      const [w, params] = groupWhere(filter);
      const total = Number((await db.get(scimListSql.groupsCount(w), ...params))?.n);
      const rows = total === 0 ? [] : await db.all(scimListSql.groups(w), ...params, page.count, page.offset);
      const items = rows.map(groupFrom);
      if (withMembers) for (const g of items) g.members = await members(g.id);
      return { total, items };
    },
    async scimGroup(id, withMembers) {
      const r = await db.get(scimSql.group, id);
      if (r === undefined) return undefined;
      const g = groupFrom(r);
      if (withMembers) g.members = await members(id);
      return g;
    },
    async createScimGroup(g, notes = []) {
      return write(
        [scimSql.insertGroup, [g.id, g.displayName, g.externalId, g.createdAt, g.createdAt]],
        () => [...memberStatements(g.id, g.members, true), [scimSql.joinAccounts, [g.displayName, g.id]]],
        notes,
      );
    },
    async replaceScimGroup(g, expectedVersion, notes = []) {
      const guard: Statement = [
        scimSql.replaceGroup,
        [g.displayName, g.externalId, g.updatedAt, g.id, expectedVersion],
      ];
      const before = g.renamedFrom ?? g.displayName;
      return write(
        guard,
        () => {
          // The name leaves the members' accounts as they were, and joins them as they are after.
          const then: Statement[] = [[scimSql.leaveAccounts, [before, g.id]]];
          if (before !== g.displayName) {
            const [from, to] = [`group:${before}`, `group:${g.displayName}`];
            then.push(
              [scimSql.moveDevices, [to, from]],
              [scimSql.moveRuns, [to, from]],
              [scimSql.moveEnrollTokens, [to, from]],
            );
          }
          then.push(...memberStatements(g.id, g.removed, false), ...memberStatements(g.id, g.added, true));
          then.push([scimSql.joinAccounts, [g.displayName, g.id]]);
          return then;
        },
        notes,
      );
    },
    async deleteScimGroup(id, notes = []) {
      const group = await db.get(scimSql.group, id);
      if (group === undefined) return 'missed';
      // The name leaves the members' accounts before the memberships go.
      return write(
        [scimSql.deleteGroup, [id]],
        () => [
          [scimSql.leaveAccounts, [group.display_name as string, id]],
          [scimSql.removeMembersOf, [id]],
        ],
        notes,
      );
    },
  };
}
