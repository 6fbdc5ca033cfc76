/**
 * The device list's totals (docs/contract.md section 22: "1–50 of 12,345"; a count may be a few
 * seconds old, and says so). Without a filter, the counters the store's triggers keep; with one, the
 * list's own statement counted up to COUNT_UP_TO devices, so that a filter every device matches
 * reads ten thousand index entries, not the fleet. Each count is kept a few seconds per scope and
 * filter (actions/count_cache.ts), shared by the views that ask meanwhile: under load, a filtered
 * page costs what the plain list costs (bench rows "GET /devices?… vs the plain list").
 */
import type { Clock } from '../clock.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { DeviceFilter } from '../domain/devices.ts';
import { type DeviceQuery, DEVICES } from '../lists/devices.ts';
import { listQueryString, valuesOf } from '../lists/parameters.ts';
import type { Store } from '../store/store.ts';
import type { DeviceTotal } from '../views/devices.ts';
import { COUNT_UP_TO, countCache, countedTotal, scopeKey } from '../actions/count_cache.ts';

export { COUNT_UP_TO } from '../actions/count_cache.ts';

/** The parameters that filter (every one but the order and the cursor). */
const FILTERS = Object.keys(DEVICES.parameters).filter((name) => name !== 'sort' && name !== 'before');

export function filtered(q: DeviceQuery): boolean {
  return FILTERS.some((name) => valuesOf(q, name).length > 0);
}

export type DeviceCounter = (viewer: Viewer, q: DeviceQuery, filter: DeviceFilter) => Promise<DeviceTotal>;

export function deviceCounter(
  store: Pick<Store, 'countsVisibleTo' | 'countDevicesVisibleTo'>,
  clock: Clock,
): DeviceCounter {
  const kept = countCache(clock);
  return function countDevices(viewer: Viewer, q: DeviceQuery, filter: DeviceFilter): Promise<DeviceTotal> {
    // The filter is the query without its order or cursor.
    const key = `${scopeKey(viewer)}\n${listQueryString(DEVICES, { ...q, sort: undefined })}`;
    return kept(key, (now) =>
      filtered(q)
        ? store.countDevicesVisibleTo(viewer, filter, COUNT_UP_TO).then((n) => countedTotal(n, now))
        : store.countsVisibleTo(viewer).then((counts) => ({ n: counts.devices, more: false, countedAt: now })),
    );
  };
}
