/**
 * What the dashboard shows, read for one viewer: the self-test, the fleet's counts, the chart by
 * level, the client versions and the retention section. One function for `GET /` and the bench's
 * same-work baseline (bench/page_baseline_server.ts). Counts may be missing: the dashboard must
 * show a failing store (its self-test says so), so each read that fails is left out, not thrown.
 */
import type { Viewer } from '../domain/accounts.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { Retention } from '../domain/retention.ts';
import { SEEN_WINDOWS } from '../domain/devices.ts';
import type { CheckResult, SelfTest } from '../selftest/selftest.ts';
import type { Store } from '../store/store.ts';
import type { RetentionStatus } from '../views/retention.ts';
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

export interface DashboardData {
  checks: CheckResult[];
  counts: Awaited<ReturnType<Store['countsVisibleTo']>> | undefined;
  fleet: Awaited<ReturnType<Store['fleetCounts']>> | undefined;
  perLevel: Record<PrivacyLevel, number[]> | undefined;
  retention: RetentionStatus;
  pending: Awaited<ReturnType<Store['pendingDevices']>> | undefined;
  clientVersions: Awaited<ReturnType<Store['factValueCounts']>> | undefined;
  disabledOwners: number | undefined;
}

export async function dashboardData(
  deps: { store: Store; selfTest: SelfTest; retention: Retention; staleAfterMs: number; onlineWithinMs: number },
  viewer: Viewer,
  now: number,
): Promise<DashboardData> {
  const { store } = deps;
  const missing = () => undefined;
  const admin = viewer.admin;
  const at = { onlineSince: now - deps.onlineWithinMs, daySince: now - DAY_MS, staleBefore: now - deps.staleAfterMs };
  const [checks, counts, fleet, perLevel, retention, pending, clientVersions, disabledOwners] = await Promise.all([
    deps.selfTest.run(),
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
  // What a check found (paths, error texts, pins) is for administrators: not even handed to the page for others.
  const shown = admin ? checks : checks.map((check) => ({ ...check, detail: '' }));
  return { checks: shown, counts, fleet, perLevel, retention, pending, clientVersions, disabledOwners };
}
