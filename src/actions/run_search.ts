/**
 * The run list, and with a text filter the search across runs (docs/contract.md section 21): the
 * console's list and the API's read this one query. A search's runs come from the store's index,
 * each then given its first matching line; a run whose lines lack a quoted phrase (the index knows
 * words, not their order) is left off its page, which may then hold fewer rows. The cursor stays
 * the store's, so the next page starts where the store's reading stopped.
 */
import { systemClock } from '../clock.ts';
import { COUNT_UP_TO, countCache } from './count_cache.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import { firstMatchingLine, type LineMatch } from '../domain/run_match.ts';
import type { RunFilter, RunSummary } from '../domain/runs.ts';
import type { Store } from '../store/store.ts';

/** A listed run, its device's name (absent once the device is gone); found by a search, with its first matching line. */
export type ListedRun = RunSummary & { match?: LineMatch; deviceName?: string };

/** A list's page with how many the list holds (docs/contract.md section 22), when it is known. */
export type ListedRuns = Page<ListedRun> & { total?: RunsTotal };

/** How many runs the list holds: exactly, or more than `count` (a filtered count stops there). */
export interface RunsTotal {
  count: number;
  more: boolean;
}

/** A filtered list is counted up to this many runs; a count is kept a few seconds per account and filter. */
export const COUNT_CAP = COUNT_UP_TO;
const counted = countCache(systemClock);

/** How many runs of a page are read at once for their first matching line. */
export const READ_AT_ONCE = 4;

export async function listRuns(
  deps: { store: Pick<Store, 'runsVisibleTo' | 'runVisibleTo' | 'deviceNames' | 'countsVisibleTo' | 'countRuns'> },
  viewer: Viewer,
  page: PageRequest,
  filter: RunFilter,
  /** The console's page names devices and says how many the list holds; the API's answer does neither. */
  shown: { named: boolean } = { named: true },
): Promise<ListedRuns> {
  const [found, total] = await Promise.all([
    deps.store.runsVisibleTo(viewer, page, filter),
    filter.text === undefined && shown.named ? totalOf(deps, viewer, filter) : undefined,
  ]);
  const names = shown.named
    ? await deps.store.deviceNames([...new Set(found.items.map((r) => r.device))])
    : new Map<string, string>();
  const named = (r: RunSummary): ListedRun => {
    const deviceName = names.get(r.device);
    return deviceName === undefined ? r : { ...r, deviceName };
  };
  const query = filter.text;
  if (query === undefined) return { ...found, items: found.items.map(named), ...(total ? { total } : {}) };
  const matches = await eachAtMost(READ_AT_ONCE, found.items, async (r) => {
    // Deleted since the list was read: nothing to show.
    const run = await deps.store.runVisibleTo(viewer, r.device, r.id);
    return run && firstMatchingLine(run, query);
  });
  const items: ListedRun[] = [];
  found.items.forEach((r, i) => {
    const match = matches[i];
    if (match !== undefined) items.push({ ...named(r), match });
  });
  return { ...found, items };
}

/**
 * How many runs the list holds: the whole scope's from the counters the store keeps (cached a few
 * seconds by the store's count cache), a filtered list's counted up to COUNT_CAP through its own
 * statement and kept a few seconds per account and filter.
 */
function totalOf(
  deps: { store: Pick<Store, 'countsVisibleTo' | 'countRuns'> },
  viewer: Viewer,
  filter: RunFilter,
): Promise<RunsTotal> {
  if (!Object.values(filter).some((v) => v !== undefined))
    return deps.store.countsVisibleTo(viewer).then((c) => ({ count: c.runs, more: false }));
  const key = JSON.stringify([viewer.subject, viewer.admin, viewer.groups ?? [], filter]);
  return counted(key, () =>
    deps.store
      .countRuns(viewer, filter, COUNT_CAP)
      .then((n) => (n > COUNT_CAP ? { count: COUNT_CAP, more: true } : { count: n, more: false })),
  );
}

/** `fn` of each item, at most `limit` at a time, in the items' order. */
async function eachAtMost<T, R>(limit: number, items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
