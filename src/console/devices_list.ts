/** GET /devices: filtered, sorted and keyset-paged (CONTRACT section 9), scoped unless admin. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { devicesPage } from '../views/devices.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deviceQuery } from '../lists/query.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { chrome, viewer } from './page_helpers.ts';

export function devicesList(ctx: Ctx): Handler<UiEnv> {
  return async function devicesListHandler(c) {
    const query = deviceQuery(c);
    if (!query.ok) return fail(c, query.failure);
    const q = query.value;
    const staleBefore = ctx.clock.now() - ctx.config.staleAfterMs;
    const devices = await ctx.store.devicesVisibleTo(
      viewer(c),
      { before: q.before, limit: PAGE_SIZE },
      { q: q.q, owner: q.owner, status: q.status, sort: q.sort, staleBefore },
    );
    return page(c, devicesPage(chrome(ctx, c), { page: devices, query: q, staleBefore }));
  };
}
