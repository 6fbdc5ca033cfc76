/**
 * Devices, and enrollment, which consumes a use of a token (the rest of tokens: enroll_tokens.ts).
 * enrollDevice needs a transaction, so each backend writes it in its own devices.ts, with the
 * statements below.
 */
import { cursor, deviceFrom, pendingReason } from './rows.ts';
import { labelConditions, labelsFrom, labelsSql, withLabels } from './labels.ts';
import { factConditions, factReach, reportOfSeq, withFacts } from './facts.ts';
import type { FactSelector } from '../domain/facts.ts';
import {
  byOwners,
  type DeviceSearch,
  IN_SCOPE,
  merged,
  type Param,
  placeholders,
  type Row,
  rowsYielded,
  scope,
  type Sql,
} from './sql.ts';
import { ownersOf } from '../domain/owners.ts';
import { type ListOptions, ownersReach } from './owners_reach.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { DevicesStore } from './store.ts';
import type { Device, DeviceFilter, DeviceSeen, DeviceSort } from '../domain/devices.ts';
import type { LabelSelector } from '../domain/labels.ts';
import type { EnrollInput } from '../domain/enroll_tokens.ts';
import type { PageRequest } from '../domain/paging.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { Note } from '../events/note.ts';

/** The devices whose owner is a disabled account (docs/contract.md section 19: the list's owner_disabled). */
export const OWNER_DISABLED = 'owner IN (SELECT subject FROM accounts WHERE disabled_at IS NOT NULL)';

/** The columns of a Device, in the order deviceFromArray reads them after the cursor. */
const columns =
  'id, name, owner, enrolled_at, last_seen_at, last_upload_at, revoked_at, enrolled_by, enroll_note, max_privacy, pending_since, pending_reason, enrolled_from';

/** The columns deviceFrom reads, for statements of other files that return a Device (store/credentials.ts). */
export const deviceColumns = columns;

/** The list queries on request paths, named so that test/store/query_plans.test.ts checks their plans. */
export const deviceLists = {
  allDevices: `SELECT seq, ${columns} FROM devices WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
  ownDevices: `SELECT seq, ${columns} FROM devices WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
  /** Each owner's arm of an account's list with its groups (sql.ts, byOwners). */
  ownersDevices: `SELECT seq, ${columns} FROM devices WHERE owner = ? AND seq < ?`,
  /** An account's list with its groups when they hold few devices (owners_reach.ts): read whole and sorted. */
  ownersDevicesIn: (n: number) =>
    `SELECT seq, ${columns} FROM devices WHERE owner IN (${placeholders(n)}) AND seq < ? ORDER BY seq DESC LIMIT ?`,
};

/**
 * Each sort of the device list: its order, and the keyset condition that continues after the
 * row whose seq is the cursor (looked up by its primary key, so the cursor stays a number).
 */
const sorts: Record<DeviceSort, { order: string; after: string }> = {
  newest: { order: 'seq DESC', after: 'seq < ?' },
  name: { order: 'name_key, seq', after: '(name_key, seq) > (SELECT name_key, seq FROM devices WHERE seq = ?)' },
  // Written out rather than as a row value, so that both planners start the index walk at the cursor.
  last_seen: {
    order: 'coalesce(last_seen_at, 0) DESC, seq DESC',
    after: `coalesce(last_seen_at, 0) <= (SELECT coalesce(last_seen_at, 0) FROM devices WHERE seq = ?)
      AND (coalesce(last_seen_at, 0) < (SELECT coalesce(last_seen_at, 0) FROM devices WHERE seq = ?) OR seq < ?)`,
  },
  // The same index walked forwards: a device never seen (0) is the oldest (docs/contract.md section 22).
  last_seen_oldest: {
    order: 'coalesce(last_seen_at, 0), seq',
    after: `coalesce(last_seen_at, 0) >= (SELECT coalesce(last_seen_at, 0) FROM devices WHERE seq = ?)
      AND (coalesce(last_seen_at, 0) > (SELECT coalesce(last_seen_at, 0) FROM devices WHERE seq = ?) OR seq > ?)`,
  },
};

/**
 * The `seen=` filter drives a list newest first from its range of devices_seen (devices_owner_seen)
 * when the range holds at most this many devices (seenRangeCount), read whole and sorted; a larger
 * one is found by walking the newest devices and checking each, which reads about a page times the
 * fleet over the range's size (5,000 rows at 100,000 devices) when the matches are spread.
 */
export const SEEN_DRIVES_UP_TO = 1_000;

/**
 * The `seen=` condition (docs/contract.md section 22): a range of devices_seen when `ranged`, else a
 * check of each row another index walks (`+ 0` keeps both planners off the range, which would read
 * every device seen within a wide window and sort them).
 */
export function seenCondition(seen: DeviceSeen, ranged: boolean): { sql: string; params: Param[] } {
  const column = ranged ? 'coalesce(last_seen_at, 0)' : 'coalesce(last_seen_at, 0) + 0';
  return seen.since !== undefined
    ? { sql: `${column} >= ?`, params: [seen.since] }
    : { sql: `${column} < ?`, params: [seen.before] };
}

/** How many devices of the owners (undefined: all) the seen range holds, up to SEEN_DRIVES_UP_TO + 1, index only. */
export function seenRangeCount(
  owners: readonly string[] | undefined,
  seen: DeviceSeen,
): { sql: string; params: Param[] } {
  const scoped = ownerCondition(owners);
  const range = seenCondition(seen, true);
  return {
    sql: `SELECT count(*) AS n FROM (SELECT 1 FROM devices WHERE ${[...scoped.sql, range.sql].join(' AND ')} LIMIT ?) AS r`,
    params: [...scoped.params, ...range.params, SEEN_DRIVES_UP_TO + 1],
  };
}

/**
 * A search within one owner's devices reads them all when there are at most this many (about what
 * the trigram index costs at a million devices for a word they all share), else the index.
 */
export const OWNER_SCAN_DEVICES = 10_000;

/** Whether the owners' devices together are few enough for a search to read them all (from the counters). */
export async function ownerHasFewDevices(db: Sql, owners: string | readonly string[]): Promise<boolean> {
  const list = typeof owners === 'string' ? [owners] : owners;
  if (list.length === 0) return true;
  const sql = list.length === 1 ? devicesSql.ownerDevices : devicesSql.ownersDevices(list.length);
  return Number((await db.get(sql, ...list))?.n ?? 0) <= OWNER_SCAN_DEVICES;
}

/**
 * The owners a list is narrowed to (docs/contract.md sections 4 and 19), or undefined for every
 * owner (an administrator's list without `owner`). A non-admin's are its subject and its groups,
 * or the one of them it filters by; another owner's devices are outside its scope: asking for
 * them finds nothing (no owner at all).
 */
export function listOwners(viewer: Viewer, owner: string | undefined): string[] | undefined {
  if (viewer.admin) return owner === undefined ? undefined : [owner];
  const mine = ownersOf(viewer);
  if (owner === undefined) return mine;
  return mine.includes(owner) ? [owner] : [];
}

/** The condition on `owner` for a list's owners (listOwners); none for every owner. */
export function ownerCondition(owners: readonly string[] | undefined): { sql: string[]; params: Param[] } {
  if (owners === undefined) return { sql: [], params: [] };
  if (owners.length === 0) return { sql: ['1 = 0'], params: [] };
  if (owners.length === 1) return { sql: ['owner = ?'], params: [...owners] };
  return { sql: [`owner IN (${placeholders(owners.length)})`], params: [...owners] };
}

/** `%q%` for LIKE, with the pattern's own wildcards escaped (ESCAPE '\\'), lower-cased. */
export function substringPattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * The conditions of the device list's filter (docs/contract.md sections 9 and 12) in the viewer's
 * scope, on `devices` unaliased: the list pages by them, and a collection from a filter reaches
 * every device they hold (store/collections.ts). Labels are not among them: each caller checks
 * those its own way (labelConditions).
 */
export function deviceConditions(
  db: Sql,
  viewer: Viewer,
  filter: Omit<DeviceFilter, 'sort'>,
  fewDevices = false,
): { where: string[]; params: Param[]; owners: string[] | undefined; search: DeviceSearch | undefined } {
  const owners = listOwners(viewer, filter.owner);
  const where: string[] = [];
  const params: Param[] = [];
  const add = (condition: string, ...values: Param[]) => (where.push(condition), params.push(...values));
  // The search is the first condition (filteredDevices may take it out to walk the index instead).
  const search = filter.q === undefined ? undefined : db.searchDevices(filter.q, owners !== undefined && fewDevices);
  if (search) add(search.sql, ...search.params);
  // A revocation ends the wait (pending_since is NULL then), so pending devices are never revoked ones.
  if (filter.status === 'revoked') where.push('revoked_at IS NOT NULL');
  else if (filter.status === 'pending') where.push('pending_since IS NOT NULL');
  else if (filter.status === 'active')
    add('revoked_at IS NULL AND pending_since IS NULL AND coalesce(last_seen_at, 0) >= ?', filter.staleBefore);
  else if (filter.status === 'stale')
    add('revoked_at IS NULL AND pending_since IS NULL AND coalesce(last_seen_at, 0) < ?', filter.staleBefore);
  // docs/contract.md section 19: the few disabled accounts (accounts_disabled), each owner's devices by its index.
  if (filter.ownerDisabled === true) where.push(OWNER_DISABLED);
  // Facts as a collection reaches them (their index each); the device list pages by them its own way.
  const facts = factReach(filter.facts ?? []);
  where.push(...facts.sql);
  params.push(...facts.params);
  return { where, params, owners, search };
}

/**
 * The filtered device list (docs/contract.md sections 9 and 12): scope or owner, substring search,
 * status, labels, then the sort's keyset condition. Each part maps to an index (see the
 * 'fleet-lists' and 'labels' migrations).
 *
 * Labels: an administrator's list, newest first and of every owner, is read from the label index
 * itself (labelDriven), so the first page of a rare label and of a common one both read about a
 * page of index entries; any other list walks its own index and checks each label by an EXISTS
 * on device_labels' primary key.
 */
export function filteredDevices(
  db: Sql,
  viewer: Viewer,
  req: PageRequest,
  filter: DeviceFilter,
  /** The owners in scope have at most OWNER_SCAN_DEVICES devices (ownerHasFewDevices). */
  fewDevices = false,
  /** An account with groups: merge its owners' lists (byOwners), or read them whole (owners_reach.ts). */
  mergeOwners = true,
  /** Newest first, the `seen=` range is small enough to read whole (seenRangeCount): it drives. */
  seenDrives = false,
): { sql: string; params: Param[] } {
  const { where, params, owners, search } = deviceConditions(db, viewer, { ...filter, facts: undefined }, fewDevices);
  const add = (condition: string, ...values: Param[]) => (where.push(condition), params.push(...values));
  const sortName = filter.sort ?? 'newest';
  const labels = filter.labels ?? [];
  const facts = filter.facts ?? [];
  const bySeen = sortName === 'last_seen' || sortName === 'last_seen_oldest';
  if (filter.seen !== undefined) {
    // The sorts by last seen walk devices_seen itself: the range bounds their walk.
    const seen = seenCondition(filter.seen, bySeen || (seenDrives && sortName === 'newest'));
    add(seen.sql, ...seen.params);
  }
  if (seenDrives && sortName === 'newest') return seenDriven(labels, facts, owners, where, params, req);
  if (labels.length + facts.length > 0 && owners === undefined && sortName === 'newest')
    return labelDriven(labels, facts, where, params, req);
  const checks = labelConditions(labels);
  const factChecks = factConditions(facts);
  where.push(...checks.sql, ...factChecks.sql);
  params.push(...checks.params, ...factChecks.params);
  // An account with groups, newest first: each owner's devices from its index, merged (byOwners).
  if (owners !== undefined && owners.length > 1 && sortName === 'newest' && mergeOwners) {
    const arm = [`SELECT seq, ${columns} FROM devices WHERE owner = ? AND seq < ?`, ...where].join(' AND ');
    return byOwners(db, owners, arm, [cursor(req.before), ...params], req.limit + 1);
  }
  // Every owner's devices, newest first: the search index's matches walked newest first, each
  // device checked for the rest (SQLite's FTS5 in rowid order: a page of the oldest devices' names,
  // 11,111 matches, read in 0.3 ms where listing every match first took 3.6 ms).
  if (search?.walk && owners === undefined && sortName === 'newest')
    return searchWalk(search.walk, where.slice(1), params.slice(search.params.length), req);
  const scoped = ownerCondition(owners);
  where.unshift(...scoped.sql);
  params.unshift(...scoped.params);
  const sort = sorts[sortName];
  // The cursor fills each placeholder of the sort's condition.
  if (req.before !== undefined)
    add(
      sort.after,
      ...sort.after
        .split('?')
        .slice(1)
        .map(() => Number(req.before)),
    );
  params.push(req.limit + 1);
  // Every owner's old matches newest first: `+ 0` keeps the planner off the primary key, whose walk
  // would read most of the fleet before the first (DeviceSearch.sorted; the sample is the fleet's,
  // so an owner's list keeps its own index).
  const order = search?.sorted && sortName === 'newest' && owners === undefined ? 'seq + 0 DESC' : sort.order;
  return {
    sql: `SELECT seq, ${columns} FROM devices ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ?`,
    params,
  };
}

/** The filtered list newest first, driven by the search index's matches (DeviceSearch.walk). */
function searchWalk(
  walk: NonNullable<DeviceSearch['walk']>,
  where: string[],
  params: Param[],
  req: PageRequest,
): { sql: string; params: Param[] } {
  const after = req.before === undefined ? [] : [Number(req.before)];
  const conditions = [walk.check, ...where].filter((c) => c !== '');
  return {
    sql: `SELECT seq, ${columns} FROM (${walk.matches}${after.length ? ` AND ${walk.key} < ?` : ''}) AS matched
      JOIN devices ON ${walk.on} ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY m DESC LIMIT ?`,
    params: [...walk.matchParams, ...after, ...walk.checkParams, ...params, req.limit + 1],
  };
}

/**
 * The list read from the range of `seen=` (devices_seen, devices_owner_seen), at most
 * SEEN_DRIVES_UP_TO devices, sorted newest first; `+seq` keeps both planners from walking the
 * primary key instead (which would read every device for a window few were seen within).
 */
function seenDriven(
  labels: readonly LabelSelector[],
  facts: readonly FactSelector[],
  owners: readonly string[] | undefined,
  where: string[],
  whereParams: Param[],
  req: PageRequest,
): { sql: string; params: Param[] } {
  const scoped = ownerCondition(owners);
  const checks = labelConditions(labels);
  const factChecks = factConditions(facts);
  const conditions = [...scoped.sql, ...where, ...checks.sql, ...factChecks.sql, '+seq < ?'];
  const params = [
    ...scoped.params,
    ...whereParams,
    ...checks.params,
    ...factChecks.params,
    cursor(req.before),
    req.limit + 1,
  ];
  return {
    sql: `SELECT seq, ${columns} FROM devices WHERE ${conditions.join(' AND ')} ORDER BY +seq DESC LIMIT ?`,
    params,
  };
}

/**
 * The list read from the label or fact index: one selector's index entries (a label's key=value in
 * device_labels_value, a fact's in device_facts_value, a label's key alone in device_labels_key)
 * walked backwards from the cursor, each joined to its device by the primary key and checked
 * against the other conditions. A label with a value drives when there is one, else a fact (both
 * exact), else a label's key alone (never more selective than an exact selector).
 * CROSS JOIN keeps SQLite from putting devices first; PostgreSQL plans it as any inner join.
 */
function labelDriven(
  labels: readonly LabelSelector[],
  facts: readonly FactSelector[],
  where: string[],
  whereParams: Param[],
  req: PageRequest,
): { sql: string; params: Param[] } {
  const label = labels.find((s) => s.value !== undefined);
  const fact = label === undefined ? facts[0] : undefined;
  const drive: { table: string; alias: string; key: string; value?: string | undefined } =
    fact !== undefined
      ? { table: 'device_facts', alias: 'df', ...fact }
      : { table: 'device_labels', alias: 'dl', ...(label ?? (labels[0] as LabelSelector)) };
  const others = labelConditions(labels.filter((s) => fact !== undefined || s !== (label ?? labels[0])));
  const otherFacts = factConditions(facts.filter((s) => s !== fact));
  const d = drive.alias;
  const on = drive.value === undefined ? [`${d}.key = ?`] : [`${d}.key = ?`, `${d}.value = ?`];
  const params: Param[] = drive.value === undefined ? [drive.key] : [drive.key, drive.value];
  on.push(`${d}.device_seq < ?`);
  params.push(cursor(req.before));
  // The cursor is stated on both sides: PostgreSQL does not carry a range across the join's
  // equality, and a merge join then walked devices from the newest down to the cursor (half a
  // second on page 10,000 of a million devices).
  const conditions = [...on, `devices.seq = ${d}.device_seq`, 'devices.seq < ?', ...where, ...others.sql];
  conditions.push(...otherFacts.sql);
  params.push(cursor(req.before), ...whereParams, ...others.params, ...otherFacts.params, req.limit + 1);
  return {
    sql: `SELECT devices.seq, ${columns} FROM ${drive.table} ${d} CROSS JOIN devices
      WHERE ${conditions.join(' AND ')} ORDER BY ${d}.device_seq DESC LIMIT ?`,
    params,
  };
}

export const devicesSql = {
  /**
   * The conditional UPDATE is the use count: each enrollment takes one use, and none once
   * uses_left is 0. Concurrent ones queue on the row (SQLite's one writer; PostgreSQL's row lock,
   * after which the WHERE is checked again on the row as the other left it), so a token with N
   * uses enrolls at most N devices, on every instance together. used_at is the last use.
   */
  consumeToken: `UPDATE enroll_tokens SET uses_left = uses_left - 1, used_at = ?
    WHERE hash = ? AND uses_left > 0 AND revoked_at IS NULL AND expires_at > ?
    RETURNING owner, created_by, name, note, max_privacy, labels, approval`,
  insertDevice: `INSERT INTO devices
    (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at, enrolled_by, enroll_note, max_privacy,
      pending_since, enrolled_from)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    RETURNING seq, ${columns}`,
  visible: `SELECT seq, ${columns} FROM devices WHERE id = ? AND ${IN_SCOPE}`,
  // Every revocation ends a wait for approval: a pending device is never a revoked one.
  revoke: `UPDATE devices SET revoked_at = ?, pending_since = NULL
    WHERE id = ? AND revoked_at IS NULL AND ${IN_SCOPE} RETURNING id`,
  /** Approval (docs/contract.md section 16): only a device that waits, once. */
  approve: `UPDATE devices SET pending_since = NULL, pending_reason = NULL
    WHERE id = ? AND pending_since IS NOT NULL AND revoked_at IS NULL AND ${IN_SCOPE} RETURNING id`,
  /** Rejection revokes a device that waits, in one statement, so an approval racing it leaves one outcome. */
  reject: `UPDATE devices SET revoked_at = ?, pending_since = NULL
    WHERE id = ? AND pending_since IS NOT NULL AND revoked_at IS NULL AND ${IN_SCOPE} RETURNING id`,
  /** The devices that wait: how many and since when the oldest (the dashboard, the gauge), from devices_pending. */
  pending: 'SELECT count(*) AS n, min(pending_since) AS oldest FROM devices WHERE pending_since IS NOT NULL',
  rename: `UPDATE devices SET name = ?, name_key = ? WHERE id = ? AND ${IN_SCOPE} RETURNING id`,
  revokedState: `SELECT revoked_at FROM devices WHERE id = ? AND ${IN_SCOPE}`,
  /** An owner's devices, from the counters the triggers keep (by the primary key). */
  ownerDevices: 'SELECT coalesce(sum(devices), 0) AS n FROM counts WHERE owner = ?',
  ownersDevices: (n: number) => `SELECT coalesce(sum(devices), 0) AS n FROM counts WHERE owner IN (${placeholders(n)})`,
  /** The stale devices, for the metrics: a range of devices_seen (a pending device is counted as pending). */
  staleCount: `SELECT count(*) AS n FROM devices
    WHERE coalesce(last_seen_at, 0) < ? AND revoked_at IS NULL AND pending_since IS NULL`,
  deleteRuns:
    'DELETE FROM runs WHERE device_id = ? AND EXISTS (SELECT 1 FROM devices WHERE id = ? AND revoked_at IS NOT NULL)',
  deleteRevoked: `DELETE FROM devices WHERE id = ? AND revoked_at IS NOT NULL AND ${IN_SCOPE} RETURNING id`,
  /** Last seen, written at most once a minute per device. */
  touch: `UPDATE devices SET last_seen_at = ?, stale_noted_at = NULL
    WHERE id = ? AND (last_seen_at IS NULL OR last_seen_at < ?)`,
  /** As revokeStale, for device.stale: each stretch of silence is marked (and sent) once. */
  // A device waiting for approval is pending, never stale: its refused calls do not count as seen.
  markStale: `UPDATE devices SET stale_noted_at = ? WHERE seq IN (
    SELECT seq FROM devices WHERE revoked_at IS NULL AND stale_noted_at IS NULL AND coalesce(last_seen_at, 0) < ?
      AND pending_since IS NULL LIMIT ?)
    AND revoked_at IS NULL AND stale_noted_at IS NULL AND coalesce(last_seen_at, 0) < ? RETURNING id, owner, last_seen_at`,
  /**
   * The outer conditions are checked again on PostgreSQL after waiting for a row that another
   * instance's sweep or an upload locked, so each device is revoked (and logged) once, and never
   * just after it called.
   */
  revokeStale: `UPDATE devices SET revoked_at = ?, pending_since = NULL WHERE seq IN (
    SELECT seq FROM devices WHERE revoked_at IS NULL AND coalesce(last_seen_at, 0) < ? LIMIT ?)
    AND revoked_at IS NULL AND coalesce(last_seen_at, 0) < ? RETURNING id`,
} as const;

/** Whether the list's `seen=` range drives it (filteredDevices' seenDrives): newest first, no search, a small range. */
async function seenRangeDrives(db: Sql, owners: readonly string[] | undefined, filter: DeviceFilter): Promise<boolean> {
  if (filter.seen === undefined || (filter.sort ?? 'newest') !== 'newest' || filter.q !== undefined) return false;
  const { sql, params } = seenRangeCount(owners, filter.seen);
  return Number((await db.get(sql, ...params))?.n ?? 0) <= SEEN_DRIVES_UP_TO;
}

/** A change's note when it changed a row. */
export function changed(note: Note | undefined): (rows: Row[]) => Note[] {
  return (rows) => (note && rows.length > 0 ? [note] : []);
}

/** Last seen is written at most this often per device, so control calls stay cheap. */
export const SEEN_EVERY_MS = 60_000;

export function devicesStore(db: Sql, opts: ListOptions = {}): Omit<DevicesStore, 'enrollDevice' | 'changeLabels'> {
  const fewRows = ownersReach(db, opts);
  return {
    async deviceVisibleTo(viewer, id) {
      const row = await db.get(devicesSql.visible, id, ...scope(viewer));
      if (!row) return undefined;
      const [labels, report] = await Promise.all([
        db.all(labelsSql.ofSeq, Number(row.seq)),
        reportOfSeq(db, Number(row.seq)),
      ]);
      return { ...deviceFrom(row), labels: labelsFrom(labels), ...report };
    },
    async devicesVisibleTo(viewer, req, filter) {
      if (
        filter &&
        (filter.q !== undefined ||
          filter.owner !== undefined ||
          filter.ownerDisabled === true ||
          filter.status !== undefined ||
          (filter.labels ?? []).length > 0 ||
          (filter.facts ?? []).length > 0 ||
          filter.seen !== undefined ||
          (filter.sort ?? 'newest') !== 'newest')
      ) {
        const owners = listOwners(viewer, filter.owner);
        const few = filter.q !== undefined && owners !== undefined && (await ownerHasFewDevices(db, owners));
        const seenDrives = await seenRangeDrives(db, owners, filter);
        const merge = !seenDrives && owners !== undefined && owners.length > 1 && !(await fewRows(owners, 'devices'));
        const { sql, params } = filteredDevices(db, viewer, req, filter, few, merge, seenDrives);
        const found = await db.arrays(sql, ...params);
        return withFacts(db, found, req.limit, withLabels(db, found, req.limit, deviceFromArray));
      }
      const owners = ownersOf(viewer);
      const rows = viewer.admin
        ? await db.arrays(deviceLists.allDevices, cursor(req.before), req.limit + 1)
        : owners.length === 1
          ? await db.arrays(deviceLists.ownDevices, viewer.subject, cursor(req.before), req.limit + 1)
          : (await fewRows(owners, 'devices'))
            ? await db.arrays(deviceLists.ownersDevicesIn(owners.length), ...owners, cursor(req.before), req.limit + 1)
            : await db.arrays(
                ...merged(byOwners(db, owners, deviceLists.ownersDevices, [cursor(req.before)], req.limit + 1)),
              );
      return withFacts(db, rows, req.limit, withLabels(db, rows, req.limit, deviceFromArray));
    },
    async countDevicesVisibleTo(viewer, filter, upTo) {
      const owners = listOwners(viewer, filter.owner);
      const few = filter.q !== undefined && owners !== undefined && (await ownerHasFewDevices(db, owners));
      const seenDrives = await seenRangeDrives(db, owners, filter);
      // The list's own statement, newest first, one row more than counted: the same index stops it.
      const counted = { ...filter, sort: 'newest' as const };
      const { sql, params } = filteredDevices(db, viewer, { limit: upTo }, counted, few, false, seenDrives);
      return rowsYielded(db, sql, params);
    },
    async revokeDevice(viewer, id, at, note) {
      return (await db.noted(changed(note), devicesSql.revoke, at, id, ...scope(viewer))).length === 1;
    },
    async approveDevice(viewer, id, note) {
      return (await db.noted(changed(note), devicesSql.approve, id, ...scope(viewer))).length === 1;
    },
    async rejectDevice(viewer, id, at, note) {
      return (await db.noted(changed(note), devicesSql.reject, at, id, ...scope(viewer))).length === 1;
    },
    async pendingDevices() {
      const row = await db.get(devicesSql.pending);
      const oldest = row?.oldest ?? null;
      return { count: Number(row?.n ?? 0), oldest: oldest === null ? null : Number(oldest) };
    },
    // An operator's one-row write, like a revocation: it goes through on a full disk (noted writes
    // draw on the reserve), so both doors answer it alike there.
    async renameDevice(viewer, id, name, note) {
      return (
        (await db.noted(changed(note), devicesSql.rename, name, name.toLowerCase(), id, ...scope(viewer))).length === 1
      );
    },
    async deleteDevice(viewer, id, note) {
      const state = await db.get(devicesSql.revokedState, id, ...scope(viewer));
      if (!state) return 'unknown';
      if (state.revoked_at === null) return 'not-revoked';
      // A revoked device stores no more runs, so nothing arrives between the two statements; a
      // failure between them leaves the device, and deleting it again finishes the work.
      await db.critical(devicesSql.deleteRuns, id, id);
      const deleted = await db.noted(changed(note), devicesSql.deleteRevoked, id, ...scope(viewer));
      return deleted.length === 1 ? 'deleted' : 'unknown';
    },
    async staleDeviceCount(before) {
      return Number((await db.get(devicesSql.staleCount, before))?.n ?? 0);
    },
    async touchDevice(id, now) {
      await db.run(devicesSql.touch, now, id, now - SEEN_EVERY_MS);
    },
    async revokeStale(before, at, limit, note) {
      const notes = (rows: Row[]) => (note ? rows.map((r) => note(r.id as string)) : []);
      return (await db.noted(notes, devicesSql.revokeStale, at, before, limit, before)).map((r) => r.id as string);
    },
    async markStale(before, at, limit, note) {
      const notes = (rows: Row[]) =>
        rows.map((r) =>
          note({
            id: r.id as string,
            owner: r.owner as string,
            lastSeenAt: r.last_seen_at === null ? null : Number(r.last_seen_at),
          }),
        );
      return (await db.noted(notes, devicesSql.markStale, at, before, limit, before)).map((r) => r.id as string);
    },
  };
}

/**
 * The arguments of devicesSql.insertDevice from the consumed token's row: its owner, minter, note
 * and privacy ceiling, and its name, which the device's own cannot override (docs/contract.md section 9).
 */
export function insertDeviceArgs(input: EnrollInput, token: Row): Param[] {
  const name = (token.name as string) || input.name;
  return [
    input.deviceId,
    name,
    name.toLowerCase(),
    token.owner as string,
    input.credentialHash,
    input.now,
    input.now,
    token.created_by as string,
    token.note as string,
    token.max_privacy as string,
    // Waits for approval from its enrollment (docs/contract.md section 16).
    token.approval === 'required' ? input.now : null,
    // The address it enrolled from, shown while it waits (docs/contract.md section 22).
    input.from ?? null,
  ];
}

/** The device an enrollment created, from the row insertDevice returns. */
export function enrolled(row: Row | undefined): Device | undefined {
  return row && deviceFrom(row);
}

function deviceFromArray(r: unknown[]): Device {
  return {
    id: r[1] as string,
    name: r[2] as string,
    owner: r[3] as string,
    enrolledAt: r[4] as number,
    lastSeenAt: (r[5] as number | null) ?? null,
    lastUploadAt: (r[6] as number | null) ?? null,
    revokedAt: (r[7] as number | null) ?? null,
    enrolledBy: r[8] as string,
    enrollNote: r[9] as string,
    maxPrivacy: r[10] as PrivacyLevel,
    pendingSince: r[11] === null || r[11] === undefined ? null : Number(r[11]),
    pendingReason: r[11] === null || r[11] === undefined ? null : pendingReason(r[12]),
    enrolledFrom: (r[13] as string | null | undefined) ?? null,
  };
}
