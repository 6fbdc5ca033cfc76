/** GET /runs: filtered by device, privacy level, day range and the level check's flag, keyset-paged, scoped unless admin. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { runsPage } from '../views/runs.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { runFilter, runQuery } from '../lists/query.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { chrome, viewer } from './page_helpers.ts';

export function runsList(ctx: Ctx): Handler<UiEnv> {
  return async function runsListHandler(c) {
    const query = runQuery(c);
    if (!query.ok) return fail(c, query.failure);
    const q = query.value;
    const runs = await ctx.store.runsVisibleTo(viewer(c), { before: q.before, limit: PAGE_SIZE }, runFilter(q));
    return page(c, runsPage(chrome(ctx, c), { page: runs, query: q }));
  };
}
