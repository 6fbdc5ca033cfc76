/**
 * GET /api/v1/runs (docs/contract.md section 11): the run list of the console as JSON, with the same
 * filters (device, privacy, since, until, flagged), keyset cursor (`before`) and scoping, for the
 * account the token stands for; parameters as the list declares them (lists/runs.ts), strictly.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { parameterNames } from '../lists/parameters.ts';
import { RUNS, runFilter } from '../lists/runs.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { listParameters } from './params.ts';
import { pageJson, runJson } from './resources.ts';

export function apiRunsList(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: parameterNames(RUNS) }, async (c, viewer) => {
    const q = listParameters(c, RUNS);
    if (q instanceof Response) return q;
    const page = await ctx.store.runsVisibleTo(viewer, { before: q.before, limit: PAGE_SIZE }, runFilter(q));
    return c.json(pageJson(page, runJson));
  });
}
