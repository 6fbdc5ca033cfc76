/** The dashboard: version, each self-test check with its outcome, and counts. */
import type { CheckResult } from '../selftest/selftest.ts';
import { barChart } from './chart_svg.ts';
import { clientVersionsSection } from './facts.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { type RetentionStatus, retentionSection } from './retention.ts';

export function dashboardPage(
  chrome: Chrome,
  opts: {
    version: string;
    checks: CheckResult[];
    counts: { devices: number; activeDevices: number; runs: number } | undefined;
    perDay: number[] | undefined;
    retention?: RetentionStatus | undefined;
    /** Devices by the client version they reported, most common first (administrators only). */
    clientVersions?: ReadonlyArray<{ value: string; devices: number }> | undefined;
    /** Devices waiting for approval (administrators only). */
    pending?: { count: number; oldest: number | null } | undefined;
    /** Devices whose owner is a disabled account (administrators only; docs/contract.md section 19). */
    disabledOwners?: number | undefined;
  },
) {
  const failed = opts.checks.filter((c) => !c.ok).length;
  // What a check found (paths, error texts, pins) is for administrators; others see outcomes.
  const details = chrome.session.admin;
  return layout(
    'Dashboard',
    chrome,
    html`<p>Paddock version <strong>${opts.version}</strong>.</p>
      <h2>Self-test</h2>
      <p>
        ${failed === 0 ? 'All checks passed.' : `${failed} of ${opts.checks.length} checks failed.`}
        ${details ? '' : 'What each check found is shown to administrators.'}
      </p>
      <table>
        <caption>
          Self-test checks
        </caption>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Outcome</th>
            ${details ? html`<th scope="col">Detail</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${opts.checks.map(
            (c) =>
              html`<tr>
                <th scope="row">${c.name}</th>
                <td>${c.ok ? (c.warning ? 'warning' : 'passed') : 'FAILED'}</td>
                ${details ? html`<td>${c.detail}</td>` : ''}
              </tr> `,
          )}
        </tbody>
      </table>
      <h2>${chrome.session.admin ? 'Everything' : 'Yours'}</h2>
      ${
        opts.counts
          ? html`<dl>
        <dt>Devices</dt>
        <dd><a href="/devices">${opts.counts.devices}</a> (${opts.counts.activeDevices} active)</dd>
        ${opts.pending ? pendingCount(opts.pending, chrome.now) : ''}
        ${opts.disabledOwners === undefined ? '' : disabledOwnersCount(opts.disabledOwners)}
        <dt>Runs</dt>
        <dd><a href="/runs">${opts.counts.runs}</a></dd>
      </dl>`
          : html`<p>Counts are unavailable while the store is unreachable.</p>`
      }
      ${opts.clientVersions ? clientVersionsSection(opts.clientVersions) : ''}
      ${opts.perDay ? uploadsChart(opts.perDay, chrome.now) : ''}
      ${opts.retention ? retentionSection(opts.retention, chrome.now) : ''}`,
  );
}

/** How many devices wait for an administrator's approval, linked to them, and since when the oldest. */
function pendingCount(pending: { count: number; oldest: number | null }, now: number) {
  return html`<dt>Waiting for approval</dt>
    <dd>
      <a href="/devices?status=pending">${pending.count}</a>${
        pending.oldest === null ? '' : html` (the oldest since ${time(pending.oldest, now)})`
      }
    </dd>`;
}

/** How many devices belong to disabled accounts, linked to them: each waits to be handed over or revoked. */
function disabledOwnersCount(devices: number) {
  return html`<dt>Held by disabled accounts</dt>
    <dd><a href="/devices?owner_disabled=yes">${devices}</a> (hand them over, or revoke them)</dd>`;
}

function uploadsChart(perDay: number[], now: number) {
  const day = (i: number) => new Date(now - (perDay.length - 1 - i) * 86_400_000).toISOString().slice(0, 10);
  const labels = perDay.map((_, i) => day(i));
  const total = perDay.reduce((a, b) => a + b, 0);
  const summary = `${total} upload${total === 1 ? '' : 's'} in the last ${perDay.length} days, ${perDay.at(-1) ?? 0} today`;
  return html`<h2>Uploads per day</h2>
    <figure>
      ${barChart(perDay, labels, summary)}
      <figcaption>${summary} (${labels[0]} to ${labels.at(-1)}, UTC).</figcaption>
    </figure>`;
}
