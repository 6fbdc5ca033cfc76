/**
 * The dashboard's uploads per day by privacy level (docs/contract.md section 22): a stacked bar
 * chart with labelled axes and a legend, its summary as the image's name, and the same numbers as
 * a table folded beneath it for whoever would rather read them.
 */
import { PRIVACY_LEVELS, type PrivacyLevel } from '../domain/privacy.ts';
import { stackedBarChart } from './chart_svg.ts';
import { html, type Html } from './html.ts';

const DAY_MS = 86_400_000;

/** A colour a level, told apart by lightness too: the most revealing darkest. */
const FILL: Record<PrivacyLevel, string> = { full: '#7a1f1f', redacted: '#c77c0e', minimal: '#8fb3d9' };

const uploads = (n: number) => `${n} upload${n === 1 ? '' : 's'}`;

/** The chart's days, oldest first, as UTC dates (2026-11-22), ending today. */
export function chartDays(days: number, now: number): string[] {
  const today = Math.floor(now / DAY_MS);
  return Array.from({ length: days }, (_, i) => new Date((today - days + 1 + i) * DAY_MS).toISOString().slice(0, 10));
}

/** The chart in a sentence: the days, the total and each level's, today's, and the busiest day. */
export function uploadsSummary(perLevel: Record<PrivacyLevel, readonly number[]>, days: readonly string[]): string {
  const totals = days.map((_, i) => PRIVACY_LEVELS.reduce((sum, l) => sum + (perLevel[l][i] ?? 0), 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const levels = PRIVACY_LEVELS.map((l) => `${perLevel[l].reduce((a, b) => a + b, 0)} ${l}`).join(', ');
  const most = Math.max(0, ...totals);
  const busiest = most === 0 ? '' : `; the most on ${days[totals.indexOf(most)] ?? ''} (${most})`;
  return `Uploads per day by privacy level, ${days[0] ?? ''} to ${days.at(-1) ?? ''} (UTC): ${uploads(total)} (${levels}), ${totals.at(-1) ?? 0} today${busiest}`;
}

/**
 * Each snapshot's section, drawn once for each day it is shown on: a dashboard's numbers are one
 * snapshot shared by the views of a few seconds (console/dashboard_data.ts), never changed, and
 * drawing the chart was a fifth of a view's time.
 */
const drawn = new WeakMap<object, { today: number; section: Html }>();

export function uploadsSection(perLevel: Record<PrivacyLevel, readonly number[]>, now: number): Html {
  const today = Math.floor(now / DAY_MS);
  const kept = drawn.get(perLevel);
  if (kept?.today === today) return kept.section;
  const section = drawUploads(perLevel, now);
  drawn.set(perLevel, { today, section });
  return section;
}

function drawUploads(perLevel: Record<PrivacyLevel, readonly number[]>, now: number): Html {
  const days = chartDays(perLevel.full.length, now);
  const summary = uploadsSummary(perLevel, days);
  const chart = stackedBarChart({
    labels: days.map((d) => d.slice(5)),
    series: PRIVACY_LEVELS.map((l) => ({ name: l, fill: FILL[l], values: perLevel[l] })),
    xLabel: 'Day (UTC, month-day)',
    yLabel: 'Uploads',
    summary,
    title: (i, level, n) => `${days[i] ?? ''}: ${n} ${level} upload${n === 1 ? '' : 's'}`,
  });
  return html`<h2>Uploads per day</h2>
    <figure>
      ${chart}
      <figcaption>${summary}.</figcaption>
    </figure>
    <details>
      <summary>The uploads per day as a table</summary>
      <table>
        <caption>
          Uploads per day by privacy level, oldest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            ${PRIVACY_LEVELS.map((l) => html`<th scope="col">${l}</th>`)}
            <th scope="col">All</th>
          </tr>
        </thead>
        <tbody>
          ${days.map(
            (day, i) =>
              html`<tr>
                <th scope="row"><time datetime="${day}">${day}</time></th>
                ${PRIVACY_LEVELS.map((l) => html`<td>${String(perLevel[l][i] ?? 0)}</td>`)}
                <td>${String(PRIVACY_LEVELS.reduce((sum, l) => sum + (perLevel[l][i] ?? 0), 0))}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </details>`;
}
