/** Parts the filtered lists share: the sentence that says which filters apply, and select options. */
import { html, type Html } from './html.ts';

/** `, matching "abc", status stale` for the filters that are set, or nothing. */
export function filterSummary(filters: Array<[label: string, value: string | undefined]>): string {
  const set = filters.filter((f): f is [string, string] => f[1] !== undefined);
  return set.map(([label, value]) => `, ${label} “${value}”`).join('');
}

export function option(value: string, label: string, selected: string): Html {
  return value === selected
    ? html`<option value="${value}" selected>${label}</option>`
    : html`<option value="${value}">${label}</option>`;
}
