/**
 * GET /runs: filtered by text (docs/contract.md section 21), device, privacy level, day range and
 * the level check's flag, keyset-paged, scoped unless admin. A bad filter is answered 400 with the
 * page itself, the form as sent (section 22).
 */
import type { Handler } from 'hono';
import { listRuns } from '../actions/run_search.ts';
import { page } from '../http/responses.ts';
import { runsPage } from '../views/runs.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { RUNS, runFilter } from '../lists/runs.ts';
import { chrome, listQuery, viewer } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function runsList(ctx: Ctx): Handler<UiEnv> {
  return async function runsListHandler(c) {
    const q = listQuery(c, RUNS);
    if (!q.ok) return page(c, runsPage(chrome(ctx, c), { page: { items: [] }, query: q.sent, error: q.error }), 400);
    const runs = await listRuns(ctx, viewer(c), { before: q.values.before, limit: PAGE_SIZE }, runFilter(q.values));
    return page(c, runsPage(chrome(ctx, c), { page: runs, query: q.values }));
  };
}
