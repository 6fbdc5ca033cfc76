/** GET /runs: newest first, 50 a page, scoped to the account unless admin. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { runsPage } from '../views/runs.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { chrome, PAGE_SIZE, pageCursor, viewer } from './page_helpers.ts';

export function runsList(ctx: Ctx): Handler<UiEnv> {
  return async function runsListHandler(c) {
    const cursor = pageCursor(c);
    if (!cursor) return fail(c, 'badCursor');
    const runs = await ctx.store.runsVisibleTo(viewer(c), { before: cursor.before, limit: PAGE_SIZE });
    return page(c, runsPage(chrome(ctx, c), { page: runs, first: cursor.before === undefined }));
  };
}
