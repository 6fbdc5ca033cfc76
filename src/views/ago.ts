/**
 * A time in a table cell (docs/contract.md section 22): `<time datetime>` with a short relative text
 * ("3 min ago") joined by no-break spaces, so a narrow column never splits it, and the exact UTC
 * time as its title.
 */
import { html, type Html } from './html.ts';

const NBSP = '\u00a0';

const units: Array<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

/** "3 min ago", "2 h ago", "in 5 d", "now": the largest whole unit, no-break spaces. */
export function shortRelative(ms: number, now: number): string {
  const distance = Math.abs(now - ms);
  const [unit, name] = units.find(([u]) => distance >= u) ?? [0, ''];
  if (unit === 0) return 'now';
  const phrase = `${Math.floor(distance / unit)}${NBSP}${name}`;
  return ms <= now ? `${phrase}${NBSP}ago` : `in${NBSP}${phrase}`;
}

/** `<time datetime="…" title="… UTC">3 min ago</time>`, or "never". */
export function ago(ms: number | null | undefined, now: number): Html | string {
  if (ms === null || ms === undefined) return 'never';
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC">${shortRelative(ms, now)}</time>`;
}
