/** GET /devices: filtered, sorted and keyset-paged (docs/contract.md section 9), scoped unless admin. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { devicesPage } from '../views/devices.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICES, deviceFilter } from '../lists/devices.ts';
import { chrome, listParameters, viewer } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function devicesList(ctx: Ctx): Handler<UiEnv> {
  return async function devicesListHandler(c) {
    const q = listParameters(c, DEVICES);
    if (q instanceof Response) return q;
    const staleBefore = ctx.clock.now() - ctx.config.staleAfterMs;
    const devices = await ctx.store.devicesVisibleTo(
      viewer(c),
      { before: q.before, limit: PAGE_SIZE },
      deviceFilter(q, staleBefore),
    );
    return page(c, devicesPage(chrome(ctx, c), { page: devices, query: q, staleBefore }));
  };
}
