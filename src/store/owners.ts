/**
 * Owners (docs/contract.md section 19): handing devices over, the devices of disabled accounts, and
 * the groups known from accounts and from owners. handOverDevices needs a transaction, so each
 * backend writes it in its own owners.ts, with the statements below; a batch's ids travel as one
 * JSON array, read by the one fragment each backend writes its own way (`list`).
 */
import { rowsYielded, type Row, type Sql } from './sql.ts';
import type { OwnersStore } from './store.ts';
import { GROUP_MEMBERS_SHOWN, type GroupMember, type GroupSummary } from '../domain/groups.ts';
import { GROUP_PREFIX } from '../domain/owners.ts';
import type { Page } from '../domain/paging.ts';

/**
 * The hand-over of a batch, in its transaction: the devices are locked in the order of their ids
 * (as an upload group locks them, so neither waits for the other in a cycle), then moved, then
 * their runs' copy of the owner. An upload that read the old owner holds its device's row (FOR
 * SHARE) until it commits, so the lock waits for it and the runs' update sees its run; an upload
 * after the commit reads the new owner.
 */
export function handOverSql(listed: (column: string) => string, lock: '' | 'FOR UPDATE') {
  return {
    /** (ids as JSON, to): the devices of the batch that are not the new owner's yet, and their owner. */
    lock: `SELECT id, owner FROM devices WHERE ${listed('id')} AND owner <> ? ORDER BY id ${lock}`,
    /** (to, ids as JSON) */
    setOwner: `UPDATE devices SET owner = ? WHERE ${listed('id')}`,
    /** (to, ids as JSON, to): by the runs' (device_id, id) key, device after device. */
    moveRuns: `UPDATE runs SET owner = ? WHERE ${listed('device_id')} AND owner <> ?`,
  } as const;
}

/** `column` is one of a JSON array of strings (one `?`), on SQLite: the index is probed for each. */
export const sqliteListed = (column: string) => `${column} IN (SELECT value FROM json_each(?))`;

/**
 * The same on PostgreSQL, as an array the index condition takes (`= ANY`): an IN over the
 * function's rows let the planner, its estimates behind a table that grew, hash the whole of runs.
 */
export const postgresListed = (column: string) =>
  `${column} = ANY (ARRAY(SELECT json_array_elements_text(CAST(? AS json))))`;

/**
 * The next group after a name, as a walk of one index probe a step (SQLite and PostgreSQL both
 * lack a skip scan): among accounts' groups (account_groups_group) and among owners
 * (devices_group_owners), `?` steps each, merged by name.
 */
const groupNames = `WITH RECURSIVE
  member_groups (name, n) AS (
    SELECT (SELECT min(group_name) FROM account_groups WHERE group_name > ?), 1
    UNION ALL
    SELECT (SELECT min(group_name) FROM account_groups WHERE group_name > member_groups.name), n + 1
      FROM member_groups WHERE name IS NOT NULL AND n <= ?
  ),
  owner_groups (owner, n) AS (
    SELECT (SELECT min(owner) FROM devices WHERE owner LIKE 'group:%' AND owner > ?), 1
    UNION ALL
    SELECT (SELECT min(owner) FROM devices WHERE owner LIKE 'group:%' AND owner > owner_groups.owner), n + 1
      FROM owner_groups WHERE owner IS NOT NULL AND n <= ?
  )
  SELECT name FROM member_groups WHERE name IS NOT NULL
  UNION SELECT substr(owner, 7) FROM owner_groups WHERE owner IS NOT NULL
  ORDER BY name LIMIT ?`;

export const ownersSql = {
  /** The first devices an owner holds (devices_owner_seq): a leaving account's, batch after batch. */
  ownedBy: 'SELECT id FROM devices WHERE owner = ? ORDER BY seq LIMIT ?',
  /** The devices of disabled accounts, from the counters (accounts_disabled, then counts by its key). */
  disabledOwnersDevices: `SELECT coalesce(sum(devices), 0) AS n FROM counts
    WHERE owner IN (SELECT subject FROM accounts WHERE disabled_at IS NOT NULL)`,
  groupNames,
  /** A group's known members, by subject (account_groups_group, then accounts by its key). */
  members: `SELECT g.subject, a.display, a.disabled_at FROM account_groups g JOIN accounts a ON a.subject = g.subject
    WHERE g.group_name = ? ORDER BY g.subject LIMIT ?`,
  memberCount: `SELECT count(*) AS n FROM account_groups g JOIN accounts a ON a.subject = g.subject
    WHERE g.group_name = ?`,
  /** A group's devices, from the counters (by their key). */
  groupDevices: 'SELECT coalesce(sum(devices), 0) AS n FROM counts WHERE owner = ?',
  /** Whether anything knows the group: a member or a device. */
  groupKnown: `SELECT EXISTS (SELECT 1 FROM account_groups WHERE group_name = ?)
    OR EXISTS (SELECT 1 FROM devices WHERE owner LIKE 'group:%' AND owner = ?) AS known`,
} as const;

function memberFrom(r: Row): GroupMember {
  return {
    subject: r.subject as string,
    display: r.display as string,
    disabledAt: r.disabled_at === null || r.disabled_at === undefined ? null : Number(r.disabled_at),
  };
}

export function ownersStore(db: Sql): Omit<OwnersStore, 'handOverDevices' | 'handOverPace'> {
  async function summary(name: string, shown: number): Promise<GroupSummary> {
    const [members, count, devices] = await Promise.all([
      db.all(ownersSql.members, name, shown),
      db.get(ownersSql.memberCount, name),
      db.get(ownersSql.groupDevices, `${GROUP_PREFIX}${name}`),
    ]);
    return {
      name,
      members: members.map(memberFrom),
      memberCount: Number(count?.n ?? 0),
      devices: Number(devices?.n ?? 0),
    };
  }
  return {
    async devicesOwnedBy(owner, limit) {
      return (await db.all(ownersSql.ownedBy, owner, limit)).map((r) => r.id as string);
    },
    async disabledOwnersDevices() {
      return Number((await db.get(ownersSql.disabledOwnersDevices))?.n ?? 0);
    },
    async groupsPage(req): Promise<Page<GroupSummary>> {
      const after = req.before ?? '';
      const rows = await db.all(
        ownersSql.groupNames,
        after,
        req.limit,
        `${GROUP_PREFIX}${after}`,
        req.limit,
        req.limit + 1,
      );
      const names = rows.map((r) => r.name as string);
      const items = await Promise.all(names.slice(0, req.limit).map((name) => summary(name, GROUP_MEMBERS_SHOWN)));
      const last = items.at(-1);
      return names.length > req.limit && last ? { items, next: last.name } : { items };
    },
    async countGroups(upTo) {
      // The list's own walk from the first name, one name past the count asked for.
      return rowsYielded(db, ownersSql.groupNames, ['', upTo + 1, GROUP_PREFIX, upTo + 1, upTo + 1]);
    },
    async group(name, members) {
      const owner = `${GROUP_PREFIX}${name}`;
      const known = await db.get(ownersSql.groupKnown, name, owner);
      if (!known || !Number(known.known)) return undefined;
      return summary(name, members);
    },
  };
}
