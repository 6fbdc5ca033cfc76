/** GET /devices: newest first, 50 a page, scoped to the account unless admin. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { devicesPage } from '../views/devices.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { chrome, PAGE_SIZE, pageCursor, viewer } from './page_helpers.ts';

export function devicesList(ctx: Ctx): Handler<UiEnv> {
  return async function devicesListHandler(c) {
    const cursor = pageCursor(c);
    if (!cursor) return fail(c, 'badCursor');
    const v = viewer(c);
    const devices = await ctx.store.devicesVisibleTo(v, { before: cursor.before, limit: PAGE_SIZE });
    return page(c, devicesPage(chrome(ctx, c), { page: devices, first: cursor.before === undefined }));
  };
}
