/** Small formatting helpers shared by the pages. */
import { html, type Html } from './html.ts';

/** "3 minutes ago", then the exact UTC time in a <time> element (machine-readable datetime). */
export function time(ms: number | null | undefined, now: number): Html | string {
  if (ms === null || ms === undefined) return 'never';
  return html`${relative(ms, now)} (${exact(ms)})`;
}

const units: Array<[number, string]> = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
];

/** The distance from now in the largest whole unit: "just now", "3 minutes ago", "in 1 day". */
export function relative(ms: number, now: number): string {
  // A time to come within 1 % of a unit counts as that unit, then rounds: a link minted for a day
  // and shown a few milliseconds later expires "in 1 day", not "in 23 hours". A past time counts
  // whole units ("3 minutes ago" until the fourth).
  const future = ms > now;
  const distance = Math.abs(now - ms);
  const [unit, name] = units.find(([u]) => distance >= (future ? 0.99 * u : u)) ?? [0, ''];
  if (unit === 0) return 'just now';
  const n = future ? Math.round(distance / unit) : Math.floor(distance / unit);
  const phrase = `${n} ${name}${n === 1 ? '' : 's'}`;
  return ms <= now ? `${phrase} ago` : `in ${phrase}`;
}

function exact(ms: number): Html {
  let markup = recent.get(ms);
  if (markup === undefined) {
    const iso = new Date(ms).toISOString();
    markup = html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`;
    if (recent.size >= 10_000) recent.clear();
    recent.set(ms, markup);
  }
  return markup;
}

/** Lists show the same times page after page; formatting a date is a measurable part of a page. */
const recent = new Map<number, Html>();

export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
