/**
 * `return` (docs/contract.md section 22, "Back where you were"): an action posted from a filtered or
 * paged list may name the list to go back to, with its query. Only a local path of the list the
 * action belongs to is followed; anything else is ignored, so the field can neither send a browser
 * off-site (an open redirect: RFC 9110 section 17.11's warning about redirects built from input) nor
 * to any other page of Paddock.
 */

/** The lists an action goes back to; a collection's page lists its targets. */
export type ListPath =
  '/devices' | '/runs' | '/webhooks' | '/enroll-tokens' | '/tokens' | '/sessions' | `/collections/${string}`;

/** Far longer than any list's own links (its filters and cursor); a longer value is not one of them. */
export const MAX_RETURN = 2048;

/**
 * The characters of a path and query (RFC 3986 section 3.3 and 3.4: unreserved, sub-delims, `:`,
 * `@`, `/`, `?`, and `%` with two hex digits), as a list's own link holds them. So no control
 * character (no header splitting), no space, no quote or angle bracket, no `\` (which browsers
 * read as `/`) and no fragment.
 */
const LINK_CHARS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;

/** A placeholder origin to resolve against: a value that leaves it is not local. */
const HERE = 'http://paddock.invalid';

/** `value` when it is `list` or `list?query`, else undefined (ignored). */
export function returnPath(value: string | undefined, list: ListPath): string | undefined {
  if (value === undefined || value.length > MAX_RETURN || !LINK_CHARS.test(value)) return undefined;
  if (value !== list && !value.startsWith(`${list}?`)) return undefined;
  // Read as a browser reads a Location, as a second check that it stays here, on the list's path.
  const url = URL.parse(value, HERE);
  if (url === null || url.origin !== HERE || url.pathname !== list) return undefined;
  return value;
}

/** Where an action on `list` answers 303: the `return` sent, when followed, else `fallback` (the list). */
export function backTo(value: string | undefined, list: ListPath, fallback: string = list): string {
  return returnPath(value, list) ?? fallback;
}

/** A confirmation page's `return`, from its query: followed only when given once. */
export function queryReturn(requestUrl: string, list: ListPath): string | undefined {
  const values = new URL(requestUrl).searchParams.getAll('return');
  return values.length === 1 ? returnPath(values[0], list) : undefined;
}

/** The path and query of a list page's own request: what its forms carry as `return`. */
export function hereOf(requestUrl: string): string {
  const url = new URL(requestUrl);
  return url.pathname + url.search;
}
