/**
 * GET /devices: filtered, sorted and keyset-paged (docs/contract.md section 9), scoped unless admin.
 * With a filter set, the page also says how many devices it matches, for the form that asks them
 * all for a run (section 15).
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { devicesPage } from '../views/devices.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { DeviceFilter, LabelledDevice } from '../domain/devices.ts';
import type { Page } from '../domain/paging.ts';
import { COLLECTION_FILTERS } from '../lists/collections.ts';
import { DEVICES, type DeviceQuery, deviceFilter } from '../lists/devices.ts';
import { valuesOf } from '../lists/parameters.ts';
import { chrome, listParameters, viewer } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function devicesList(ctx: Ctx): Handler<UiEnv> {
  return async function devicesListHandler(c) {
    const q = listParameters(c, DEVICES);
    if (q instanceof Response) return q;
    const now = ctx.clock.now();
    const staleBefore = now - ctx.config.staleAfterMs;
    const v = viewer(c);
    const filter = deviceFilter(q, staleBefore);
    const devices = await ctx.store.devicesVisibleTo(v, { before: q.before, limit: PAGE_SIZE }, filter);
    const reach = await reachOf(ctx, v, q, filter, devices, now);
    return page(c, devicesPage(chrome(ctx, c), { page: devices, query: q, staleBefore, reach }));
  };
}

/**
 * How many devices the filters match, as a collection would reach them. A first page that is the
 * whole list is its own count. With no filter set, it is every device in scope: the dashboard's
 * counter (kept by the store's triggers, cached for a few seconds). Otherwise the store counts, up
 * to 100,001 rows: a broad filter costs about 0.1 s on 100,000 devices.
 */
async function reachOf(
  ctx: Ctx,
  v: Viewer,
  q: DeviceQuery,
  filter: DeviceFilter,
  shown: Page<LabelledDevice>,
  now: number,
): Promise<number> {
  if (q.before === undefined && shown.next === undefined) return shown.items.length;
  if (!COLLECTION_FILTERS.some((name) => valuesOf(q, name).length > 0))
    return (await ctx.store.countsVisibleTo(v)).devices;
  // The count reads only the scope and the filter; the collection's fields shape no condition.
  const asked = {
    id: '',
    createdBy: v.subject,
    createdAt: now,
    privacy: 'minimal',
    reason: '',
    expiresAt: now,
  } as const;
  return ctx.store.countCollectionReach(v, asked, { filter });
}
