/**
 * Dashboard counts (and the uploads-per-day charts, the fleet counts, and the client versions) cached for a few seconds per viewer, so a page view never counts a million
 * runs: counting grows with the table, and a count a few seconds old is as useful on a dashboard.
 */
import type { Clock } from '../clock.ts';
import type { Store } from './store.ts';
import type { Viewer } from '../domain/accounts.ts';
import { ownersOf } from '../domain/owners.ts';

type Counts = Awaited<ReturnType<Store['countsVisibleTo']>>;

const MAX_ENTRIES = 10_000;

/**
 * A viewer's counts are those of its owners (docs/contract.md section 19): its subject and its
 * groups, so a change of groups is counted afresh at once, never served another set's counts.
 */
function cacheKey(viewer: Viewer): string {
  return viewer.admin ? '*' : ownersOf(viewer).join('\0');
}

export function withCountCache(store: Store, clock: Clock, ttlMs = 5_000): Store {
  const cache = new Map<string, { at: number; counts: Promise<Counts> }>();
  function countsVisibleTo(viewer: Viewer): Promise<Counts> {
    const key = cacheKey(viewer);
    const now = clock.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < ttlMs) return hit.counts;
    if (cache.size >= MAX_ENTRIES) cache.clear();
    const counts = store.countsVisibleTo(viewer);
    // A failed count is not remembered: the next view asks the store again.
    counts.catch(() => cache.delete(key));
    cache.set(key, { at: now, counts });
    return counts;
  }
  const charts = new Map<string, { at: number; counts: Promise<number[]> }>();
  function uploadsPerDay(viewer: Viewer, days: number, now: number): Promise<number[]> {
    const key = `${cacheKey(viewer)}\0${days}`;
    const hit = charts.get(key);
    if (hit && now - hit.at < ttlMs && Math.floor(hit.at / 86_400_000) === Math.floor(now / 86_400_000))
      return hit.counts;
    if (charts.size >= MAX_ENTRIES) charts.clear();
    const counts = store.uploadsPerDay(viewer, days, now);
    counts.catch(() => charts.delete(key));
    charts.set(key, { at: now, counts });
    return counts;
  }
  // The dashboard's client versions read every device's fact (about 0.1 s at 100,000 devices).
  const values = new Map<string, { at: number; counts: ReturnType<Store['factValueCounts']> }>();
  function factValueCounts(key: string, limit: number): ReturnType<Store['factValueCounts']> {
    const name = `${key}\0${limit}`;
    const now = clock.now();
    const hit = values.get(name);
    if (hit && now - hit.at < ttlMs) return hit.counts;
    if (values.size >= MAX_ENTRIES) values.clear();
    const counts = store.factValueCounts(key, limit);
    counts.catch(() => values.delete(name));
    values.set(name, { at: now, counts });
    return counts;
  }
  // The dashboard's fleet counts and chart by level (store/dashboard.ts): per viewer, as the counts.
  const fleet = new Map<string, { at: number; counts: ReturnType<Store['fleetCounts']> }>();
  function fleetCounts(viewer: Viewer, at: Parameters<Store['fleetCounts']>[1]): ReturnType<Store['fleetCounts']> {
    const key = cacheKey(viewer);
    const now = clock.now();
    const hit = fleet.get(key);
    if (hit && now - hit.at < ttlMs) return hit.counts;
    if (fleet.size >= MAX_ENTRIES) fleet.clear();
    const counts = store.fleetCounts(viewer, at);
    counts.catch(() => fleet.delete(key));
    fleet.set(key, { at: now, counts });
    return counts;
  }
  const levels = new Map<string, { at: number; counts: ReturnType<Store['uploadsByLevel']> }>();
  function uploadsByLevel(viewer: Viewer, days: number, now: number): ReturnType<Store['uploadsByLevel']> {
    const key = `${cacheKey(viewer)}\0${days}`;
    const hit = levels.get(key);
    // A new UTC day moves the chart's window: counted afresh.
    if (hit && now - hit.at < ttlMs && Math.floor(hit.at / 86_400_000) === Math.floor(now / 86_400_000))
      return hit.counts;
    if (levels.size >= MAX_ENTRIES) levels.clear();
    const counts = store.uploadsByLevel(viewer, days, now);
    counts.catch(() => levels.delete(key));
    levels.set(key, { at: now, counts });
    return counts;
  }
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'fleetCounts') return fleetCounts;
      if (prop === 'uploadsByLevel') return uploadsByLevel;
      if (prop === 'countsVisibleTo') return countsVisibleTo;
      if (prop === 'factValueCounts') return factValueCounts;
      if (prop === 'uploadsPerDay') return uploadsPerDay;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
