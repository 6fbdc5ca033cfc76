/**
 * The dashboard's retention section (docs/contract.md section 10): stored bytes per level, how long each
 * level is kept, and, for administrators, what the next sweep will remove and how the last one went.
 */
import { PRIVACY_LEVELS, type PrivacyLevel } from '../domain/privacy.ts';
import type { SweepRecord } from '../domain/retention.ts';
import { time, size } from './format.ts';
import { html } from './html.ts';

export interface RetentionStatus {
  /** The configured retention per level (undefined: kept). */
  keptFor: Partial<Record<PrivacyLevel, number | undefined>>;
  /** Scoped to the viewer; undefined while the store is unreachable. */
  stored: Record<PrivacyLevel, number> | undefined;
  /** Administrators only: what a sweep now would remove per level (counted up to `bound` runs). */
  due?: Partial<Record<PrivacyLevel, { runs: number; bytes: number }>> | undefined;
  bound?: number;
  /** Administrators only: undefined when no sweep has run yet. */
  last?: SweepRecord | undefined;
  admin: boolean;
}

const DURATION_UNITS: Array<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/** A configured duration as an operator writes it: 30d, 12h, 90m. */
export function duration(ms: number): string {
  const [unit, name] = DURATION_UNITS.find(([u]) => ms % u === 0) ?? [1000, 's'];
  return `${ms / unit}${name}`;
}

export function retentionSection(s: RetentionStatus, now: number) {
  const anySet = PRIVACY_LEVELS.some((l) => s.keptFor[l] !== undefined);
  const due = (level: PrivacyLevel) => {
    if (s.keptFor[level] === undefined) return 'nothing (kept)';
    const d = s.due?.[level];
    if (!d) return 'unavailable';
    const runs = d.runs >= (s.bound ?? Infinity) ? `${d.runs} (the most one sweep removes)` : `${d.runs}`;
    return `${runs} run${d.runs === 1 ? '' : 's'}, ${size(d.bytes)}`;
  };
  return html`<h2>Retention</h2>
    <p>
      ${
        anySet
          ? 'Runs older than their level’s retention are deleted by the sweeper, in bounded batches.'
          : 'Runs are kept at every level: no PADDOCK_RETENTION_FULL, _REDACTED or _MINIMAL is set.'
      }
    </p>
    <table>
      <caption>
        Stored runs by privacy level${s.admin ? '' : ' (yours)'}
      </caption>
      <thead>
        <tr>
          <th scope="col">Level</th>
          <th scope="col">Stored</th>
          <th scope="col">Kept for</th>
          ${s.admin ? html`<th scope="col">Next sweep removes</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${PRIVACY_LEVELS.map(
          (level) =>
            html`<tr>
              <th scope="row">${level}</th>
              <td>${s.stored ? size(s.stored[level]) : 'unavailable'}</td>
              <td>${s.keptFor[level] === undefined ? 'always' : duration(s.keptFor[level])}</td>
              ${s.admin ? html`<td>${due(level)}</td>` : ''}
            </tr> `,
        )}
      </tbody>
    </table>
    ${s.admin ? lastSweep(s.last, now) : ''}`;
}

function lastSweep(last: SweepRecord | undefined, now: number) {
  if (!last) return html`<p>Last sweep: none yet.</p>`;
  const removed = PRIVACY_LEVELS.map((l) => `${last.runs[l]} ${l}`).join(', ');
  const result = last.result === 'ok' ? 'completed' : 'stopped early (see the log); the next sweep goes on';
  return html`<p>Last sweep: ${time(last.at, now)}, ${result}; removed ${removed} (${size(last.bytes)}).</p>`;
}
