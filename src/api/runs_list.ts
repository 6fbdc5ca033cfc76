/**
 * GET /api/v1/runs (CONTRACT section 11): the run list of the console as JSON, with the same
 * filters (device, privacy, since, until, flagged), keyset cursor (`before`) and scoping, for the
 * account the token stands for; parameters checked strictly (api/params.ts).
 */
import type { Handler } from 'hono';
import type { FailureName } from '../http/failures.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { runFilter, runQuery } from '../lists/query.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { badParameter } from './params.ts';
import { pageJson, runJson } from './resources.ts';

const PARAMETERS = ['device', 'privacy', 'since', 'until', 'flagged', 'before'] as const;

const FIELD: Partial<Record<FailureName, string>> = {
  badDeviceFilter: 'device',
  badPrivacyFilter: 'privacy',
  badDate: 'since',
  badDateRange: 'until',
  badFlaggedFilter: 'flagged',
  badCursor: 'before',
};

export function apiRunsList(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: PARAMETERS }, async (c, viewer) => {
    const query = runQuery(c);
    if (!query.ok) return badParameter(c, query.failure, FIELD);
    const q = query.value;
    const page = await ctx.store.runsVisibleTo(viewer, { before: q.before, limit: PAGE_SIZE }, runFilter(q));
    return c.json(pageJson(page, runJson));
  });
}
