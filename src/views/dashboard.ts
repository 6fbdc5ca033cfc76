/**
 * The dashboard (docs/contract.md section 22): the fleet first, then the uploads per day by level,
 * the client versions and retention, and last the version and the self-test folded to one line;
 * a failing self-test leads the page instead, its table open.
 */
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { CheckResult } from '../selftest/selftest.ts';
import { clientVersionsSection } from './client_versions.ts';
import { type FleetView, fleetSection } from './fleet.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { type RetentionStatus, retentionSection } from './retention.ts';
import { selfTestFailed, selfTestSection } from './self_test.ts';
import { uploadsSection } from './uploads_chart.ts';

export interface DashboardView {
  version: string;
  checks: CheckResult[];
  counts: FleetView['counts'];
  fleet: FleetView['fleet'];
  /** Uploads per day by level, oldest first; undefined while the store is unreachable. */
  perLevel: Record<PrivacyLevel, number[]> | undefined;
  retention?: RetentionStatus | undefined;
  /** Devices by the client version they reported, most common first (administrators only). */
  clientVersions?: ReadonlyArray<{ value: string; devices: number }> | undefined;
  pending?: FleetView['pending'];
  disabledOwners?: FleetView['disabledOwners'];
  online: FleetView['online'];
  staleAfterMs: number;
  /** When the numbers were read, together (console/dashboard_data.ts). */
  takenAt?: number | undefined;
}

export function dashboardPage(chrome: Chrome, opts: DashboardView) {
  const admin = chrome.session.admin;
  // What a check found (paths, error texts, pins) is for administrators; others see outcomes.
  const selfTest = selfTestSection(opts.checks, admin);
  const failing = selfTestFailed(opts.checks);
  const version = html`<p>Paddock version <strong>${opts.version}</strong>.</p>`;
  return layout(
    'Dashboard',
    chrome,
    html`${failing ? html`${selfTest} ${version}` : ''}
      ${fleetSection({ ...opts, admin, now: chrome.now })}
      ${opts.perLevel ? uploadsSection(opts.perLevel, chrome.now) : ''}
      ${opts.clientVersions ? clientVersionsSection(opts.clientVersions) : ''}
      ${opts.retention ? retentionSection(opts.retention, chrome.now) : ''}
      ${failing ? '' : html`<h2>This server</h2>${version} ${selfTest}`}`,
  );
}
