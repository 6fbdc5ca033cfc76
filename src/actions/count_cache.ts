/**
 * The lists' totals kept a few seconds (docs/contract.md section 22: "a count may be a few seconds
 * old, and says so"): a keyed cache for each list (devices, runs, collections, groups, audit
 * trail, accounts, enrollment tokens), so a list counted by many views at once is counted once,
 * and a count never reads more than COUNT_UP_TO rows of the list's own statement.
 */
import type { Clock } from '../clock.ts';
import type { Viewer } from '../domain/accounts.ts';
import { ownersOf } from '../domain/owners.ts';
import type { Page } from '../domain/paging.ts';

/**
 * How many rows a list holds (docs/contract.md section 22), counted at `countedAt`: exactly `n`, or
 * more than `n` when the count stopped at its cap.
 */
export interface ListTotal {
  n: number;
  more: boolean;
  countedAt: number;
}

/** A list is counted up to this many rows; more reads "more than 10,000". */
export const COUNT_UP_TO = 10_000;
/** How long a count is reused. */
export const COUNT_FRESH_MS = 5_000;
/** Past this many kept counts the cache starts afresh: distinct filters sent by the thousand cannot grow it. */
const MAX_ENTRIES = 10_000;

/**
 * `count` for `key`, the one already running or counted within the last few seconds when there is
 * one. A count that fails, or whose value `keep` refuses (one read of several failed), is not
 * remembered: the next view counts again.
 */
export type CountCache = <T>(
  key: string,
  count: (now: number) => Promise<T>,
  keep?: (value: T) => boolean,
) => Promise<T>;

export function countCache(clock: Clock, freshMs: number = COUNT_FRESH_MS): CountCache {
  const kept = new Map<string, { at: number; count: Promise<unknown> }>();
  return function keptCount<T>(key: string, count: (now: number) => Promise<T>, keep?: (value: T) => boolean) {
    const now = clock.now();
    const hit = kept.get(key);
    if (hit && now - hit.at < freshMs) return hit.count as Promise<T>;
    if (kept.size >= MAX_ENTRIES) kept.clear();
    const counted = count(now);
    const entry = { at: now, count: counted };
    const forget = () => {
      if (kept.get(key) === entry) kept.delete(key);
    };
    counted.then((value) => (keep === undefined || keep(value) ? undefined : forget()), forget);
    kept.set(key, entry);
    return counted;
  };
}

/** A viewer's scope as a key: what it may see is what its owners own (docs/contract.md section 19). */
export function scopeKey(viewer: Viewer): string {
  return viewer.admin ? '*' : ownersOf(viewer).join('\0');
}

/** A store's count up to COUNT_UP_TO (a larger number is COUNT_UP_TO + 1) as a list's total. */
export function countedTotal(n: number, countedAt: number): ListTotal {
  return { n: Math.min(n, COUNT_UP_TO), more: n > COUNT_UP_TO, countedAt };
}

/**
 * The total of a page just read, when the page says it: a first page that is the whole list is its
 * own count. Undefined when the list must be counted.
 */
export function wholeList(read: Page<unknown>, first: boolean, now: number): ListTotal | undefined {
  return first && read.next === undefined ? { n: read.items.length, more: false, countedAt: now } : undefined;
}
