/**
 * The dashboard's fleet at a glance (docs/contract.md section 22): devices online, seen in a day and
 * stale, open collections, flagged runs, and uploads per day by privacy level, each in the viewer's
 * scope and each read from an index that holds only what it counts (no count grows with the whole
 * store). The page reads them through the count cache (count_cache.ts), a few seconds old at most.
 */
import type { Viewer } from '../domain/accounts.ts';
import { ownersOf } from '../domain/owners.ts';
import { PRIVACY_LEVELS, type PrivacyLevel } from '../domain/privacy.ts';
import { chartStart, perDay } from './rows.ts';
import { type Param, placeholders, type Row, type Sql } from './sql.ts';
import type { DashboardStore } from './store.ts';

const DAY_MS = 86_400_000;

/** A statement for each scope: every owner's (an administrator), one owner's, and several owners' (with groups). */
interface Scoped {
  all: string;
  own: string;
  owners: (n: number) => string;
}

/** `base` (`… WHERE <conditions>`) narrowed to one owner, or to several, by the leading `owner` of its index. */
function scoped(base: string, rest = ''): Scoped {
  return {
    all: `${base}${rest}`,
    own: `${base} AND owner = ?${rest}`,
    owners: (n) => `${base} AND owner IN (${placeholders(n)})${rest}`,
  };
}

/**
 * Each count's statement. Devices by last seen walk devices_seen (devices_owner_seen for an owner):
 * a range of the devices seen since then, never the others. Open collections are the partial index
 * collections_open_expiry's (an administrator's) or an account's own (collections_creator); flagged
 * runs are runs_flagged_list's and runs_owner_flagged_list's, which hold flagged runs only.
 */
export const dashboardSql = {
  /**
   * Online (docs/contract.md section 22, domain/devices.ts isOnline): seen since then, neither revoked
   * nor waiting; the range of devices_seen, each checked on its row.
   */
  online: scoped(
    'SELECT count(*) AS n FROM devices WHERE coalesce(last_seen_at, 0) >= ? AND revoked_at IS NULL AND pending_since IS NULL',
  ),
  /** As the device list's `seen=` filter: any device seen since then, read from the index alone. */
  seenSince: scoped('SELECT count(*) AS n FROM devices WHERE coalesce(last_seen_at, 0) >= ?'),
  /** As the device list's `status=stale` (store/devices.ts deviceConditions): a range of devices_seen below the cut. */
  stale: scoped(
    'SELECT count(*) AS n FROM devices WHERE coalesce(last_seen_at, 0) < ? AND revoked_at IS NULL AND pending_since IS NULL',
  ),
  openCollections: {
    all: 'SELECT count(*) AS n FROM collections WHERE closed_at IS NULL',
    own: 'SELECT count(*) AS n FROM collections WHERE created_by = ? AND closed_at IS NULL',
  },
  // A literal, not a parameter: the planners then take the partial indexes of flagged runs.
  flaggedRuns: scoped('SELECT count(*) AS n FROM runs WHERE flagged = 1'),
  /**
   * An administrator's chart: a count a day and level, each a range of its level's retention index
   * (runs_retention_<level>, uploaded_at first), all in one statement. Counting a range reads its
   * index entries and nothing else, about eight times faster on SQLite than grouping the window's
   * entries by day (1,000,000 runs: 14 ms against 116 ms). The level is a literal so that both
   * planners take the partial index. Its parameters: each day's start and end, level by level.
   */
  levelDays: (days: number) =>
    `SELECT ${PRIVACY_LEVELS.flatMap((level) =>
      Array.from(
        { length: days },
        (_, i) =>
          `(SELECT count(*) FROM runs WHERE privacy = '${level}' AND uploaded_at >= ? AND uploaded_at < ?) AS ${level}_${i}`,
      ),
    ).join(', ')}`,
  /** The first run of the window, through runs_uploaded_at (seq follows the time of upload, as in filteredRuns). */
  firstSince: 'SELECT seq FROM runs WHERE uploaded_at >= ? ORDER BY uploaded_at, seq LIMIT 1',
  /**
   * An owner's chart: its runs from the window's first seq on, from runs_owner_list (owner, seq, …,
   * privacy, …, uploaded_at), which holds every column read, so no run's row is read. `+ 0` keeps
   * the planners from taking runs_owner_uploaded_at, which holds no level.
   */
  ownerPerDay: scoped(
    'SELECT uploaded_at / 86400000 AS day, privacy, count(*) AS n FROM runs WHERE seq >= ? AND uploaded_at + 0 >= ?',
    ' GROUP BY day, privacy',
  ),
} as const;

/** The statement of `s` for the viewer, with the owners' parameters to append after the others. */
function forViewer(viewer: Viewer, s: Scoped): [string, Param[]] {
  if (viewer.admin) return [s.all, []];
  const owners = ownersOf(viewer);
  return owners.length === 1 ? [s.own, owners] : [s.owners(owners.length), owners];
}

export function dashboardStore(db: Sql): DashboardStore {
  const count = async (viewer: Viewer, s: Scoped, ...params: Param[]) => {
    const [sql, owners] = forViewer(viewer, s);
    return Number((await db.get(sql, ...params, ...owners))?.n ?? 0);
  };
  return {
    async fleetCounts(viewer, at) {
      const collections = viewer.admin
        ? db.get(dashboardSql.openCollections.all)
        : db.get(dashboardSql.openCollections.own, viewer.subject);
      const [online, seenToday, stale, openCollections, flaggedRuns] = await Promise.all([
        count(viewer, dashboardSql.online, at.onlineSince),
        count(viewer, dashboardSql.seenSince, at.daySince),
        count(viewer, dashboardSql.stale, at.staleBefore),
        collections.then((r) => Number(r?.n ?? 0)),
        count(viewer, dashboardSql.flaggedRuns),
      ]);
      return { online, seenToday, stale, openCollections, flaggedRuns };
    },
    async uploadsByLevel(viewer, days, now) {
      const since = chartStart(days, now);
      if (viewer.admin) {
        const bounds = Array.from({ length: days }, (_, i) => [since + i * DAY_MS, since + (i + 1) * DAY_MS]).flat();
        const row = await db.get(dashboardSql.levelDays(days), ...PRIVACY_LEVELS.flatMap(() => bounds));
        return Object.fromEntries(
          PRIVACY_LEVELS.map((level) => [
            level,
            Array.from({ length: days }, (_, i) => Number(row?.[`${level}_${i}`] ?? 0)),
          ]),
        ) as Record<PrivacyLevel, number[]>;
      }
      const first = await db.get(dashboardSql.firstSince, since);
      const [sql, owners] = forViewer(viewer, dashboardSql.ownerPerDay);
      const rows = first === undefined ? [] : await db.all(sql, Number(first.seq), since, ...owners);
      return byLevel(rows, days, now);
    },
  };
}

/** `(day, privacy, n)` rows spread over the chart's days, one series a level. */
function byLevel(rows: Row[], days: number, now: number): Record<PrivacyLevel, number[]> {
  return Object.fromEntries(
    PRIVACY_LEVELS.map((level) => [
      level,
      perDay(
        rows.filter((r) => r.privacy === level),
        days,
        now,
      ),
    ]),
  ) as Record<PrivacyLevel, number[]>;
}
