/** Small formatting helpers shared by the pages. */
import { type Html, raw } from './html.ts';

/** An exact UTC time in a <time> element (machine-readable datetime, readable text). */
export function time(ms: number | null | undefined): Html | string {
  if (ms === null || ms === undefined) return 'never';
  let markup = recent.get(ms);
  if (markup === undefined) {
    // An ISO string has only digits, '-', ':', '.', 'T' and 'Z': nothing to escape, so no template.
    const iso = new Date(ms).toISOString();
    markup = raw(`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`);
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
