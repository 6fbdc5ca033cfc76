/**
 * Collections and their targets (docs/contract.md section 15), the same statements on both backends.
 * A collection is created in one transaction of two statements: one INSERT … SELECT over the device
 * list's own conditions (deviceConditions) writes every target, skipped ones with their reason, and
 * the collection's row then counts them. A target's id is the request id the device sees; every
 * change of a target is one conditional statement, so two instances never move one twice.
 */
import {
  type Collection,
  type CollectionScope,
  type CollectionState,
  type CollectionTarget,
  type DeviceRequest,
  emptyCounts,
  WAKE_SLICE,
  type WokenDevice,
  MAX_OPEN_PER_DEVICE,
  MAX_TARGETS,
  type NewCollection,
  requestId,
  requestSeq,
  type TargetCounts,
  type TargetState,
} from '../domain/collections.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { Page } from '../domain/paging.ts';
import { PRIVACY_LEVELS, type PrivacyLevel } from '../domain/privacy.ts';
import { deviceConditions, listOwners, ownerCondition, ownerHasFewDevices } from './devices.ts';
import { owned, ownedSql, type Param, placeholders, type Row, rowsYielded, type Sql } from './sql.ts';
import type { CollectionsStore } from './store.ts';
import type { Wakeups } from './wakeups.ts';

const OPEN = "('pending', 'delivered')";

/** A privacy level's rank, in SQL: 0 the most revealing (PRIVACY_LEVELS' order). */
const rank = (column: string) =>
  `CASE ${column} ${PRIVACY_LEVELS.map((l, i) => `WHEN '${l}' THEN ${i}`).join(' ')} END`;

const collectionColumns =
  'c.seq, c.id, c.created_by, c.created_at, c.privacy, c.reason, c.expires_at, c.closed_at, c.cancelled_at';

export const collectionsSql = {
  insert: `INSERT INTO collections (id, created_by, created_at, privacy, reason, expires_at)
    VALUES (?, ?, ?, ?, ?, ?)`,
  byId: `SELECT ${collectionColumns} FROM collections c WHERE c.id = ?`,
  allCollections: `SELECT ${collectionColumns} FROM collections c WHERE c.seq < ? ORDER BY c.seq DESC LIMIT ?`,
  ownCollections: `SELECT ${collectionColumns} FROM collections c WHERE c.created_by = ? AND c.seq < ?
    ORDER BY c.seq DESC LIMIT ?`,
  /** The lists' totals (docs/contract.md section 22): their rows without columns or counts, by the same indexes. */
  allCount: 'SELECT 1 FROM collections c WHERE c.seq < ? ORDER BY c.seq DESC LIMIT ?',
  ownCount: 'SELECT 1 FROM collections c WHERE c.created_by = ? AND c.seq < ? ORDER BY c.seq DESC LIMIT ?',
  openOnly: 'c.closed_at IS NULL',
  closedOnly: 'c.closed_at IS NOT NULL',
  /** Counts by state of the collections whose ids are listed (index collection_targets_collection). */
  counts: (n: number) =>
    `SELECT collection, state, count(*) AS n FROM collection_targets WHERE collection IN (${placeholders(n)})
      GROUP BY collection, state`,
  targets: `SELECT t.seq, t.device, coalesce(d.name, t.device) AS name, t.state, t.since, t.run, t.reason, t.stderr
    FROM collection_targets t LEFT JOIN devices d ON d.id = t.device
    WHERE t.collection = ? AND t.seq < ? ORDER BY t.seq DESC LIMIT ?`,
  targetsInState: `SELECT t.seq, t.device, coalesce(d.name, t.device) AS name, t.state, t.since, t.run, t.reason, t.stderr
    FROM collection_targets t LEFT JOIN devices d ON d.id = t.device
    WHERE t.collection = ? AND t.state = ? AND t.seq < ? ORDER BY t.seq DESC LIMIT ?`,
  /**
   * A non-admin's view of a collection (section 15, as the device list scopes it, section 4): the
   * targets of the devices it owns now, whoever asked them. A creator who has lost admin since sees
   * nothing of another account's devices: not their ids, names, states, reasons, nor their number.
   */
  ownTargets: `SELECT t.seq, t.device, d.name, t.state, t.since, t.run, t.reason, t.stderr
    FROM collection_targets t JOIN devices d ON d.id = t.device
    WHERE t.collection = ? AND ${ownedSql('d.owner')} AND t.seq < ? ORDER BY t.seq DESC LIMIT ?`,
  ownTargetsInState: `SELECT t.seq, t.device, d.name, t.state, t.since, t.run, t.reason, t.stderr
    FROM collection_targets t JOIN devices d ON d.id = t.device
    WHERE t.collection = ? AND t.state = ? AND ${ownedSql('d.owner')} AND t.seq < ? ORDER BY t.seq DESC LIMIT ?`,
  /** As counts, of the targets of the owner's devices only (each target's device read by its id). */
  ownCounts: (n: number) =>
    `SELECT t.collection, t.state, count(*) AS n FROM collection_targets t JOIN devices d ON d.id = t.device
      WHERE t.collection IN (${placeholders(n)}) AND ${ownedSql('d.owner')} GROUP BY t.collection, t.state`,
  /** A device's open requests, oldest first (index collection_targets_open). */
  openRequests: `SELECT t.seq, t.state, c.id AS collection, c.privacy, c.reason, c.created_at, c.expires_at
    FROM collection_targets t JOIN collections c ON c.id = t.collection
    WHERE t.device = ? AND t.state IN ${OPEN} AND c.expires_at > ? ORDER BY t.seq LIMIT ?`,
  deliver: (n: number) =>
    `UPDATE collection_targets SET state = 'delivered', since = ? WHERE state = 'pending' AND seq IN (${placeholders(n)})`,
  request: `SELECT t.seq, t.state, t.run, c.id AS collection, c.privacy, c.reason, c.created_at, c.expires_at
    FROM collection_targets t JOIN collections c ON c.id = t.collection WHERE t.seq = ? AND t.device = ?`,
  /**
   * As request, with the level of the device's run `id` when one is stored (an upload's X-Collection,
   * issue 42): a request and the run that would answer it, in one read.
   */
  requestAndRun: `SELECT t.seq, t.state, t.run, c.id AS collection, c.privacy, c.reason, c.created_at, c.expires_at,
      (SELECT r.privacy FROM runs r WHERE r.device_id = t.device AND r.id = ?) AS stored
    FROM collection_targets t JOIN collections c ON c.id = t.collection WHERE t.seq = ? AND t.device = ?`,
  /**
   * Fulfils an open, unexpired request by the run `run`, unless a run of that id is stored at a level
   * more revealing than the request's (issue 42): the store itself never lets a request be answered
   * above its level, even by an upload that raced another of the same id.
   */
  fulfil: `UPDATE collection_targets SET state = 'fulfilled', since = ?, run = ?
    WHERE seq = ? AND device = ? AND state IN ${OPEN}
      AND EXISTS (SELECT 1 FROM collections c WHERE c.id = collection_targets.collection AND c.expires_at > ?
        AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.device_id = collection_targets.device AND r.id = ?
          AND ${rank('r.privacy')} < ${rank('c.privacy')}))`,
  decline: `UPDATE collection_targets SET state = 'declined', since = ?, reason = ?, stderr = ?
    WHERE seq = ? AND device = ? AND state IN ${OPEN}
      AND EXISTS (SELECT 1 FROM collections c WHERE c.id = collection_targets.collection AND c.expires_at > ?)`,
  cancel: `UPDATE collection_targets SET state = 'cancelled', since = ? WHERE collection = ? AND state IN ${OPEN}`,
  /** A non-admin creator's cancel: the open targets of the devices it owns now, no other account's. */
  cancelOwn: `UPDATE collection_targets SET state = 'cancelled', since = ? WHERE collection = ? AND state IN ${OPEN}
    AND device IN (SELECT id FROM devices WHERE ${ownedSql('owner')})`,
  /** Marked cancelled once a cancel has left nothing open (a non-admin's may leave others' targets open). */
  markCancelled: `UPDATE collections SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM collection_targets t WHERE t.collection = ? AND t.state IN ${OPEN})`,
  /** The open targets of a revoked device (index collection_targets_open); their collections. */
  deviceOpen: `SELECT DISTINCT collection FROM collection_targets WHERE device = ? AND state IN ${OPEN}`,
  cancelDevice: `UPDATE collection_targets SET state = 'cancelled', since = ? WHERE device = ? AND state IN ${OPEN}`,
  /** Open collections past their expiry (index collections_open_expiry). */
  expiring: 'SELECT id FROM collections WHERE closed_at IS NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?',
  expire: `UPDATE collection_targets SET state = 'expired', since = ? WHERE collection = ? AND state IN ${OPEN}`,
  /** Closes a collection with no open target left; one row when this call closed it. */
  close: `UPDATE collections SET closed_at = ? WHERE id = ? AND closed_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM collection_targets t WHERE t.collection = ? AND t.state IN ${OPEN})`,
  /**
   * Which of the held devices have a request waiting, or were revoked. `state IN (open)` repeats
   * the open index's own condition, which SQLite needs written out to use it.
   */
  /**
   * The open, unexpired requests of the listed held devices, oldest first (index
   * collection_targets_open; a device has at most MAX_OPEN_PER_DEVICE): what the hub answers them
   * with. A held device had none when it was held, so any found is new.
   */
  toWake: (n: number) =>
    `SELECT t.seq, t.device, t.state, c.id AS collection, c.privacy, c.reason, c.created_at, c.expires_at
      FROM collection_targets t JOIN collections c ON c.id = t.collection
      WHERE t.device IN (${placeholders(n)}) AND t.state IN ${OPEN} AND c.expires_at > ? ORDER BY t.device, t.seq`,
  /** Whether each listed device is revoked, and its credential's version (held requests judged again when it changed). */
  standingOf: (n: number) => `SELECT id, revoked_at, credential_version FROM devices WHERE id IN (${placeholders(n)})`,
  targetsByState: 'SELECT state, count(*) AS n FROM collection_targets GROUP BY state',
} as const;

/** The store's own view (events, the collection just created or closed): every target. */
const EVERY: Viewer = { subject: '', admin: true };

/**
 * The INSERT … SELECT that writes a collection's targets: every device of `scope` the viewer can
 * see, each `pending`, or `skipped` with its reason (revoked; waiting for approval; a ceiling below
 * the level asked; busy with 5 open requests). Named devices the viewer cannot see are not reached, nor counted.
 */
export async function targetsInsert(
  db: Sql,
  viewer: Viewer,
  c: NewCollection,
  scope: CollectionScope,
): Promise<{ sql: string; params: Param[]; count: { sql: string; params: Param[] } }> {
  const filter = 'filter' in scope ? scope.filter : { staleBefore: 0 };
  const owners = listOwners(viewer, filter.owner);
  const few = owners !== undefined && 'q' in filter && filter.q !== undefined && (await ownerHasFewDevices(db, owners));
  const conditions = deviceConditions(db, viewer, filter, few);
  const scoped = ownerCondition(conditions.owners);
  const where = [...scoped.sql, ...conditions.where];
  const params = [...scoped.params, ...conditions.params];
  if ('devices' in scope) {
    where.push(`id IN (${placeholders(scope.devices.length)})`);
    params.push(...scope.devices);
  } else {
    // Each label read from its index (device_labels_value, or _key for a key alone), so a rare
    // label reaches its devices without reading the fleet.
    for (const l of scope.filter.labels ?? []) {
      if (l.value === undefined) {
        where.push('seq IN (SELECT device_seq FROM device_labels WHERE key = ?)');
        params.push(l.key);
      } else {
        where.push('seq IN (SELECT device_seq FROM device_labels WHERE key = ? AND value = ?)');
        params.push(l.key, l.value);
      }
    }
  }
  const condition = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const asked = PRIVACY_LEVELS.indexOf(c.privacy);
  const busy = `(SELECT count(*) FROM collection_targets o WHERE o.device = devices.id AND o.state IN ${OPEN}) >= ${MAX_OPEN_PER_DEVICE}`;
  const skip = `CASE WHEN revoked_at IS NOT NULL THEN 'revoked' WHEN pending_since IS NOT NULL THEN 'pending'
      WHEN ${rank('max_privacy')} > ${asked} THEN 'ceiling'
      WHEN ${busy} THEN 'busy' END`;
  return {
    sql: `INSERT INTO collection_targets (collection, device, state, since, reason)
      SELECT ?, id, CASE WHEN skip IS NULL THEN 'pending' ELSE 'skipped' END, ?, skip
      FROM (SELECT id, ${skip} AS skip FROM devices ${condition} ORDER BY seq LIMIT ${MAX_TARGETS}) reached`,
    params: [c.id, c.createdAt, ...params],
    count: {
      sql: `SELECT count(*) AS n FROM (SELECT 1 FROM devices ${condition} LIMIT ${MAX_TARGETS + 1}) reached`,
      params,
    },
  };
}

function collectionFrom(r: Row, counts: TargetCounts = emptyCounts()): Collection {
  return {
    id: r.id as string,
    createdBy: r.created_by as string,
    createdAt: Number(r.created_at),
    privacy: r.privacy as PrivacyLevel,
    reason: r.reason as string,
    expiresAt: Number(r.expires_at),
    closedAt: r.closed_at === null ? null : Number(r.closed_at),
    cancelledAt: r.cancelled_at === null ? null : Number(r.cancelled_at),
    counts,
  };
}

function requestFrom(r: Row): DeviceRequest {
  return {
    id: requestId(Number(r.seq)),
    collection: r.collection as string,
    privacy: r.privacy as PrivacyLevel,
    reason: r.reason as string,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
}

export function collectionsStore(db: Sql, wakeups: Wakeups): CollectionsStore {
  /** Counts by state of each listed collection: every target for an admin (or the store itself), else the viewer's devices' only. */
  async function countsOf(ids: readonly string[], viewer: Viewer = EVERY): Promise<Map<string, TargetCounts>> {
    const out = new Map(ids.map((id) => [id, emptyCounts()]));
    if (ids.length === 0) return out;
    const rows = viewer.admin
      ? await db.all(collectionsSql.counts(ids.length), ...ids)
      : await db.all(collectionsSql.ownCounts(ids.length), ...ids, ...owned(viewer));
    for (const r of rows) {
      const counts = out.get(r.collection as string);
      if (counts) counts[r.state as TargetState] = Number(r.n);
    }
    return out;
  }

  async function withCounts(r: Row | undefined, viewer: Viewer = EVERY): Promise<Collection | undefined> {
    if (r === undefined) return undefined;
    return collectionFrom(r, (await countsOf([r.id as string], viewer)).get(r.id as string));
  }

  /** Closes each collection with nothing open left; those this call closed, with their counts. */
  async function closeDone(ids: Iterable<string>, at: number): Promise<Collection[]> {
    const closed: Collection[] = [];
    for (const id of new Set(ids)) {
      if ((await db.critical(collectionsSql.close, at, id, id)) === 1) {
        const c = await withCounts(await db.get(collectionsSql.byId, id));
        if (c) closed.push(c);
      }
    }
    return closed;
  }

  return {
    async countCollectionReach(viewer, c, scope) {
      const insert = await targetsInsert(db, viewer, c, scope);
      return Number((await db.get(insert.count.sql, ...insert.count.params))?.n ?? 0);
    },

    async createCollection(viewer, c, scope) {
      const insert = await targetsInsert(db, viewer, c, scope);
      await db.atomically([
        [insert.sql, insert.params],
        [collectionsSql.insert, [c.id, c.createdBy, c.createdAt, c.privacy, c.reason, c.expiresAt]],
      ]);
      // A collection that reached no device, or skipped every one, has nothing open: closed at once.
      await db.critical(collectionsSql.close, c.createdAt, c.id, c.id);
      await wakeups.notify(c.id);
      const created = await withCounts(await db.get(collectionsSql.byId, c.id));
      if (!created) throw new Error(`store: collection ${c.id} not found after creating it`);
      return created;
    },

    async collectionsVisibleTo(viewer, req, state) {
      const before = req.before === undefined ? Number.MAX_SAFE_INTEGER : Number(req.before);
      const [base, params] = viewer.admin
        ? [collectionsSql.allCollections, [before, req.limit + 1]]
        : [collectionsSql.ownCollections, [viewer.subject, before, req.limit + 1]];
      const sql = stateCondition(base, state);
      const rows = await db.all(sql, ...(params as Param[]));
      const page = rows.slice(0, req.limit);
      const counts = await countsOf(
        page.map((r) => r.id as string),
        viewer,
      );
      const items = page.map((r) => collectionFrom(r, counts.get(r.id as string)));
      const last = page.at(-1);
      return rows.length > req.limit && last ? { items, next: String(last.seq) } : { items };
    },

    async countCollectionsVisibleTo(viewer, state, upTo) {
      const base = viewer.admin ? collectionsSql.allCount : collectionsSql.ownCount;
      const params: Param[] = viewer.admin
        ? [Number.MAX_SAFE_INTEGER, upTo + 1]
        : [viewer.subject, Number.MAX_SAFE_INTEGER, upTo + 1];
      return rowsYielded(db, stateCondition(base, state), params);
    },

    async collectionVisibleTo(viewer, id) {
      const r = await db.get(collectionsSql.byId, id);
      if (r === undefined || (!viewer.admin && r.created_by !== viewer.subject)) return undefined;
      return withCounts(r, viewer);
    },

    async collectionTargets(viewer, id, req, state) {
      const before = req.before === undefined ? Number.MAX_SAFE_INTEGER : Number(req.before);
      const [sql, params]: [string, Param[]] = viewer.admin
        ? state === undefined
          ? [collectionsSql.targets, [id, before]]
          : [collectionsSql.targetsInState, [id, state, before]]
        : state === undefined
          ? [collectionsSql.ownTargets, [id, ...owned(viewer), before]]
          : [collectionsSql.ownTargetsInState, [id, state, ...owned(viewer), before]];
      const rows = await db.all(sql, ...params, req.limit + 1);
      const items = rows.slice(0, req.limit).map((r): CollectionTarget => ({
        request: requestId(Number(r.seq)),
        device: r.device as string,
        deviceName: r.name as string,
        state: r.state as TargetState,
        since: Number(r.since),
        run: (r.run as string | null) ?? null,
        reason: (r.reason as string | null) ?? null,
        stderr: (r.stderr as string | null) ?? null,
      }));
      const last = rows[req.limit - 1];
      return rows.length > req.limit && last
        ? { items, next: String(last.seq) }
        : ({ items } as Page<CollectionTarget>);
    },

    async cancelCollection(viewer, id, at) {
      const c = await db.get(collectionsSql.byId, id);
      if (c === undefined || (!viewer.admin && c.created_by !== viewer.subject)) return undefined;
      const cancelled = viewer.admin
        ? await db.critical(collectionsSql.cancel, at, id)
        : await db.critical(collectionsSql.cancelOwn, at, id, ...owned(viewer));
      if (cancelled > 0) await db.critical(collectionsSql.markCancelled, at, id, id);
      const [closed] = await closeDone([id], at);
      return { cancelled, closed };
    },

    async takeRequests(device, now, limit) {
      const rows = await db.all(collectionsSql.openRequests, device, now, limit);
      const pending = rows.filter((r) => r.state === 'pending').map((r) => Number(r.seq));
      if (pending.length > 0) await db.run(collectionsSql.deliver(pending.length), now, ...pending);
      return rows.map(requestFrom);
    },

    async requestOf(device, id, run) {
      const r = await db.get(collectionsSql.requestAndRun, run ?? null, requestSeq(id), device);
      if (r === undefined) return undefined;
      return {
        request: requestFrom(r),
        state: r.state as TargetState,
        run: (r.run as string | null) ?? null,
        stored: (r.stored as PrivacyLevel | null) ?? null,
      };
    },

    async fulfilRequest(device, request, run, at) {
      // The request as the upload read it (requestOf): the one conditional statement, no read again.
      if ((await db.critical(collectionsSql.fulfil, at, run, requestSeq(request.id), device, at, run)) !== 1)
        return { outcome: 'not-open' };
      const [closed] = await closeDone([request.collection], at);
      return { outcome: 'fulfilled', collection: request.collection, createdAt: request.createdAt, closed };
    },

    async declineRequest(device, id, reason, at, stderr = null) {
      const r = await db.get(collectionsSql.request, requestSeq(id), device);
      if (r === undefined) return { outcome: 'unknown' };
      if ((await db.critical(collectionsSql.decline, at, reason, stderr, requestSeq(id), device, at)) !== 1) {
        return { outcome: 'not-open' };
      }
      const [closed] = await closeDone([r.collection as string], at);
      return { outcome: 'declined', collection: r.collection as string, createdAt: Number(r.created_at), closed };
    },

    async cancelDeviceRequests(device, at) {
      const collections = (await db.all(collectionsSql.deviceOpen, device)).map((r) => r.collection as string);
      if (collections.length === 0) return [];
      await db.critical(collectionsSql.cancelDevice, at, device);
      return closeDone(collections, at);
    },

    async expireCollections(now, limit) {
      const ids = (await db.all(collectionsSql.expiring, now, limit)).map((r) => r.id as string);
      for (const id of ids) await db.critical(collectionsSql.expire, now, id);
      return closeDone(ids, now);
    },

    async wakeRequests(devices, now, limit) {
      const woken = new Map<string, WokenDevice>();
      if (devices.length > WAKE_SLICE) throw new RangeError(`at most ${WAKE_SLICE} devices at a time`);
      if (devices.length === 0) return woken;
      const rows = await db.all(collectionsSql.toWake(devices.length), ...devices, now);
      // Read after the requests: a device revoked before this is answered 401 and given none.
      const standing = new Map<string, number>();
      for (const r of await db.all(collectionsSql.standingOf(devices.length), ...devices)) {
        if (r.revoked_at !== null) woken.set(r.id as string, 'revoked');
        else standing.set(r.id as string, Number(r.credential_version));
      }
      const pending: number[] = [];
      for (const r of rows) {
        const device = r.device as string;
        const credentialVersion = standing.get(device);
        if (credentialVersion === undefined) continue;
        let found = woken.get(device);
        if (found === undefined) woken.set(device, (found = { requests: [], credentialVersion }));
        if (found === 'revoked' || found.requests.length >= limit) continue;
        found.requests.push(requestFrom(r));
        if (r.state === 'pending') pending.push(Number(r.seq));
      }
      if (pending.length > 0) await db.run(collectionsSql.deliver(pending.length), now, ...pending);
      return woken;
    },

    onRequestsCreated: (listener) => wakeups.subscribe(listener),

    async targetsByState() {
      const counts = emptyCounts();
      for (const r of await db.all(collectionsSql.targetsByState)) counts[r.state as TargetState] = Number(r.n);
      return counts;
    },
  };
}

/** The list statement with the open or closed condition added before its cursor's. */
function stateCondition(sql: string, state: CollectionState | undefined): string {
  if (state === undefined) return sql;
  const condition = state === 'open' ? collectionsSql.openOnly : collectionsSql.closedOnly;
  return sql.replace('c.seq < ?', `${condition} AND c.seq < ?`);
}
