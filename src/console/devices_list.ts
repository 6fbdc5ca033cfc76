/**
 * GET /devices: filtered, sorted and keyset-paged (docs/contract.md sections 9 and 22), scoped unless
 * admin, with how many devices the list holds (console/device_counts.ts). A bad filter is answered
 * 400 with the page itself, the form as sent and the message beside the field at fault.
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { hereOf } from '../http/return_path.ts';
import { devicesPage, type DeviceTotal } from '../views/devices.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICES, deviceFilter } from '../lists/devices.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { deviceCounter } from './device_counts.ts';
import { chrome, listQuery, pagePosition, viewer } from './page_helpers.ts';

export function devicesList(ctx: Ctx): Handler<UiEnv> {
  const countDevices = deviceCounter(ctx.store, ctx.clock);
  return async function devicesListHandler(c) {
    const q = listQuery(c, DEVICES);
    if (!q.ok) return page(c, devicesPage(chrome(ctx, c), { query: q.sent, error: q.error }), 400);
    const query = q.values;
    const now = ctx.clock.now();
    const staleBefore = now - ctx.config.staleAfterMs;
    const v = viewer(c);
    const filter = deviceFilter(query, staleBefore, now);
    const devices = await ctx.store.devicesVisibleTo(v, { before: query.before, limit: PAGE_SIZE }, filter);
    // A first page that is the whole list is its own count.
    const total: DeviceTotal =
      query.before === undefined && devices.next === undefined
        ? { n: devices.items.length, more: false, countedAt: now }
        : await countDevices(v, query, filter);
    return page(
      c,
      devicesPage(chrome(ctx, c), {
        page: devices,
        query,
        staleBefore,
        onlineSince: now - ctx.config.onlineWithinMs,
        total,
        from: pagePosition(new URL(c.req.url).searchParams),
        here: hereOf(c.req.url),
      }),
    );
  };
}
