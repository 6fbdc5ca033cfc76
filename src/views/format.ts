/** Small formatting helpers shared by the pages. */
import { html, type Html } from './html.ts';

/** An exact UTC time in a <time> element (machine-readable datetime, readable text). */
export function time(ms: number | null | undefined): Html | string {
  if (ms === null || ms === undefined) return 'never';
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC')}</time>`;
}

export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
