/**
 * What the dashboard shows, read for one viewer: the self-test, the fleet's counts, the chart by
 * level, the client versions and the retention section. One function for `GET /` and the bench's
 * same-work baseline (bench/page_baseline_server.ts). Counts may be missing: the dashboard must
 * show a failing store (its self-test says so), so each read that fails is left out, not thrown.
 * The numbers are one snapshot (docs/contract.md section 22): read together, kept together a few
 * seconds per scope, and shown with the time they were taken, so the numbers of one page agree.
 */
import type { Clock } from '../clock.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { Retention } from '../domain/retention.ts';
import { SEEN_WINDOWS } from '../domain/devices.ts';
import type { CheckResult, SelfTest } from '../selftest/selftest.ts';
import type { Store } from '../store/store.ts';
import type { RetentionStatus } from '../views/retention.ts';
import { countCache, scopeKey } from '../actions/count_cache.ts';
import { retentionStatus } from './retention_status.ts';

/** How many client versions the dashboard shows: the most common. */
export const CLIENT_VERSIONS = 10;

/** Days shown in the uploads chart: two weeks, today last. */
export const CHART_DAYS = 14;

/**
 * Where the dashboard's count of online devices links: the device list's `seen=` window of the same
 * length (PADDOCK_ONLINE_WITHIN, default 5m) with `status=active`, which holds exactly the devices
 * counted (domain/devices.ts isOnline: neither revoked nor waiting); for a length no window has,
 * the active devices most recently seen first, the online ones leading.
 */
export function onlineLink(onlineWithinMs: number): string {
  const window = Object.entries(SEEN_WINDOWS).find(([, ms]) => ms === onlineWithinMs)?.[0];
  return window === undefined ? '/devices?status=active&sort=last_seen' : `/devices?seen=${window}&status=active`;
}

const DAY_MS = 86_400_000;

/** The dashboard's numbers, all read at `takenAt`. */
export interface DashboardNumbers {
  takenAt: number;
  counts: Awaited<ReturnType<Store['countsVisibleTo']>> | undefined;
  fleet: Awaited<ReturnType<Store['fleetCounts']>> | undefined;
  perLevel: Record<PrivacyLevel, number[]> | undefined;
  retention: RetentionStatus;
  pending: Awaited<ReturnType<Store['pendingDevices']>> | undefined;
  clientVersions: Awaited<ReturnType<Store['factValueCounts']>> | undefined;
  disabledOwners: number | undefined;
}

export interface DashboardData extends DashboardNumbers {
  checks: CheckResult[];
}

export interface DashboardDeps {
  store: Store;
  selfTest: SelfTest;
  retention: Retention;
  staleAfterMs: number;
  onlineWithinMs: number;
}

/**
 * What the dashboard shows, its numbers from the viewer's scope's snapshot: taken now when none was
 * taken in the last few seconds, else that one, whole. A snapshot with a read that failed is not kept.
 */
export function dashboardSnapshots(deps: DashboardDeps, clock: Clock) {
  const kept = countCache(clock);
  return async function dashboardSnapshot(viewer: Viewer): Promise<DashboardData> {
    const [checks, numbers] = await Promise.all([
      deps.selfTest.run(),
      kept(scopeKey(viewer), (now) => dashboardNumbers(deps, viewer, now), whole),
    ]);
    return { checks: checksShown(checks, viewer), ...numbers };
  };
}

/** Whether every read of a snapshot answered (the ones its viewer is not shown are undefined alike). */
function whole(n: DashboardNumbers): boolean {
  const admin = n.retention.admin;
  return (
    n.counts !== undefined &&
    n.fleet !== undefined &&
    n.perLevel !== undefined &&
    n.retention.stored !== undefined &&
    (!admin ||
      (n.retention.due !== undefined &&
        n.pending !== undefined &&
        n.clientVersions !== undefined &&
        n.disabledOwners !== undefined))
  );
}

/** What a check found (paths, error texts, pins) is for administrators: not even handed to the page for others. */
function checksShown(checks: CheckResult[], viewer: Viewer): CheckResult[] {
  return viewer.admin ? checks : checks.map((check) => ({ ...check, detail: '' }));
}

async function dashboardNumbers(deps: DashboardDeps, viewer: Viewer, now: number): Promise<DashboardNumbers> {
  const { store } = deps;
  const missing = () => undefined;
  const admin = viewer.admin;
  const at = { onlineSince: now - deps.onlineWithinMs, daySince: now - DAY_MS, staleBefore: now - deps.staleAfterMs };
  const [counts, fleet, perLevel, retention, pending, clientVersions, disabledOwners] = await Promise.all([
    store.countsVisibleTo(viewer).catch(missing),
    store.fleetCounts(viewer, at).catch(missing),
    store.uploadsByLevel(viewer, CHART_DAYS, now).catch(missing),
    retentionStatus(store, deps.retention, viewer, now),
    // How many devices wait for approval (docs/contract.md section 16): administrators decide, so they see it.
    admin ? store.pendingDevices().catch(missing) : undefined,
    // The fleet's client versions (docs/contract.md section 16): the ten most common, for administrators.
    admin ? store.factValueCounts('client_version', CLIENT_VERSIONS).catch(missing) : undefined,
    // Devices whose owner left (docs/contract.md section 19): administrators hand them over.
    admin ? store.disabledOwnersDevices().catch(missing) : undefined,
  ]);
  return { takenAt: now, counts, fleet, perLevel, retention, pending, clientVersions, disabledOwners };
}
