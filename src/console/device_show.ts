/** GET /devices/{id}: the device page, its runs keyset-paged; 404 outside the account's scope. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { DEVICE_ID } from '../domain/ids.ts';
import { page } from '../http/responses.ts';
import { devicePage } from '../views/device.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICE_RUNS } from '../lists/pages.ts';
import { chrome, listParameters, viewer } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function deviceShow(ctx: Ctx): Handler<UiEnv> {
  return async function deviceShowHandler(c) {
    const id = c.req.param('id') ?? '';
    const cursor = listParameters(c, DEVICE_RUNS);
    if (cursor instanceof Response) return cursor;
    const v = viewer(c);
    const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(v, id) : undefined;
    if (!device) return fail(c, 'deviceNotFound');
    const [storedBytes, runs, credential] = await Promise.all([
      ctx.store.storedBytes(id),
      ctx.store.runsVisibleTo(v, { before: cursor.before, limit: PAGE_SIZE }, { device: id }),
      ctx.store.deviceCredential(id),
    ]);
    const staleBefore = ctx.clock.now() - ctx.config.staleAfterMs;
    return page(
      c,
      devicePage(chrome(ctx, c), { device, storedBytes, runs, before: cursor.before, staleBefore, credential }),
    );
  };
}
