/**
 * A list's query (RFC 7644 sections 3.4.2.2 and 3.4.2.4): `filter` as equalities on the indexed
 * attributes, `startIndex` (1-based; less than 1 is 1) and `count` (at most LIST_MAX; less than 0
 * is 0), and the ListResponse around a page.
 */
import { invalid, isFailure, type ScimFailure } from '../domain/scim_failure.ts';
import { parseFilter } from '../domain/scim_filter.ts';
import { SCHEMA } from '../domain/scim_schema.ts';
import type { ScimPageRequest } from '../domain/scim.ts';

/** The most resources one page holds, and the page a request that names no count gets. */
export const LIST_MAX = 1000;
export const LIST_DEFAULT = 100;

/**
 * The filter's equalities by the attribute each names in `attributes` (in any case, with or
 * without the core schema's URN), `none` when no resource can match, or invalidFilter: an attribute
 * not listed, or a value not a string.
 */
export function filterOf<K extends string>(
  text: string | null,
  attributes: readonly K[],
  core: string,
): Partial<Record<K, string>> | 'none' | ScimFailure {
  if (text === null) return {};
  const comparisons = parseFilter(text);
  if (isFailure(comparisons)) return comparisons;
  const found: Partial<Record<K, string>> = {};
  for (const c of comparisons) {
    const bare = c.path.toLowerCase().startsWith(`${core.toLowerCase()}:`) ? c.path.slice(core.length + 1) : c.path;
    const name = attributes.find((a) => a.toLowerCase() === bare.toLowerCase());
    if (name === undefined) return invalid('invalidFilter', `filters compare ${attributes.join(', ')}: not ${c.path}`);
    if (typeof c.value !== 'string') return invalid('invalidFilter', `${name} is compared with a string`);
    // No stored value holds a control character (nor could PostgreSQL take a NUL), and one
    // attribute equal to two values matches nothing: neither is asked of the store.
    if (/\p{Cc}/u.test(c.value) || (found[name] !== undefined && found[name] !== c.value)) return 'none';
    found[name] = c.value;
  }
  return found;
}

export function pageOf(params: URLSearchParams): ScimPageRequest | ScimFailure {
  const number = (name: string, fallback: number) => {
    const text = params.get(name);
    if (text === null) return fallback;
    return /^-?[0-9]{1,9}$/.test(text) ? Number(text) : undefined;
  };
  const start = number('startIndex', 1);
  const count = number('count', LIST_DEFAULT);
  if (start === undefined) return invalid('invalidValue', 'startIndex must be a whole number');
  if (count === undefined) return invalid('invalidValue', 'count must be a whole number');
  return { offset: Math.max(start, 1) - 1, count: Math.min(Math.max(count, 0), LIST_MAX) };
}

export function listResponse(total: number, page: ScimPageRequest, resources: unknown[]) {
  return {
    schemas: [SCHEMA.listResponse],
    totalResults: total,
    startIndex: page.offset + 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
