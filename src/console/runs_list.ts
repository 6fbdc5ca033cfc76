/** GET /runs: filtered by device, privacy level, day range and the level check's flag, keyset-paged, scoped unless admin. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { runsPage } from '../views/runs.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { RUNS, runFilter } from '../lists/runs.ts';
import { chrome, listParameters, viewer } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function runsList(ctx: Ctx): Handler<UiEnv> {
  return async function runsListHandler(c) {
    const q = listParameters(c, RUNS);
    if (q instanceof Response) return q;
    const runs = await ctx.store.runsVisibleTo(viewer(c), { before: q.before, limit: PAGE_SIZE }, runFilter(q));
    return page(c, runsPage(chrome(ctx, c), { page: runs, query: q }));
  };
}
