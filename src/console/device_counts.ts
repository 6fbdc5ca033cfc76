/**
 * The device list's totals (docs/contract.md section 22: "1–50 of 12,345"; a count may be a few
 * seconds old, and says so). Without a filter, the counters the store's triggers keep; with one, the
 * list's own statement counted up to COUNT_UP_TO devices, so that a filter every device matches
 * reads ten thousand index entries, not the fleet. Each count is kept COUNT_FRESH_MS per scope and
 * filter, shared by the views that ask meanwhile: under load, a filtered page costs what the plain
 * list costs (bench rows "GET /devices?… vs the plain list").
 */
import type { Clock } from '../clock.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { DeviceFilter } from '../domain/devices.ts';
import { ownersOf } from '../domain/owners.ts';
import { type DeviceQuery, DEVICES } from '../lists/devices.ts';
import { listQueryString, valuesOf } from '../lists/parameters.ts';
import type { Store } from '../store/store.ts';
import type { DeviceTotal } from '../views/devices.ts';

/** A filtered list is counted up to this many devices; more reads "more than 10,000". */
export const COUNT_UP_TO = 10_000;
/** How long a count is reused (the count cache's few seconds, store/count_cache.ts). */
export const COUNT_FRESH_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** The parameters that filter (every one but the order and the cursor). */
const FILTERS = Object.keys(DEVICES.parameters).filter((name) => name !== 'sort' && name !== 'before');

export function filtered(q: DeviceQuery): boolean {
  return FILTERS.some((name) => valuesOf(q, name).length > 0);
}

export type DeviceCounter = (viewer: Viewer, q: DeviceQuery, filter: DeviceFilter) => Promise<DeviceTotal>;

export function deviceCounter(store: Pick<Store, 'countsVisibleTo' | 'countDevicesVisibleTo'>, clock: Clock) {
  const cache = new Map<string, { at: number; total: Promise<DeviceTotal> }>();
  return function countDevices(viewer: Viewer, q: DeviceQuery, filter: DeviceFilter): Promise<DeviceTotal> {
    // A viewer's scope is its owners (docs/contract.md section 19); the filter is its query without order or cursor.
    const key = `${viewer.admin ? '*' : ownersOf(viewer).join('\0')}\n${listQueryString(DEVICES, { ...q, sort: undefined })}`;
    const now = clock.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < COUNT_FRESH_MS) return hit.total;
    if (cache.size >= MAX_ENTRIES) cache.clear();
    const total = filtered(q)
      ? store
          .countDevicesVisibleTo(viewer, filter, COUNT_UP_TO)
          .then((n) => ({ n: Math.min(n, COUNT_UP_TO), more: n > COUNT_UP_TO, countedAt: now }))
      : store.countsVisibleTo(viewer).then((counts) => ({ n: counts.devices, more: false, countedAt: now }));
    // A failed count is not remembered: the next view asks the store again.
    total.catch(() => cache.delete(key));
    cache.set(key, { at: now, total });
    return total;
  };
}
