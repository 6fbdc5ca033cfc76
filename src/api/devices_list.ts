/**
 * GET /api/v1/devices (CONTRACT section 11): the device list of the console as JSON, with the same
 * filters, sorts, keyset cursor (`before`) and scoping, for the account the token stands for.
 * Parameters are checked strictly: an unknown one, a repeated one or a bad value is a 400 problem
 * that names it.
 */
import type { Handler } from 'hono';
import type { FailureName } from '../http/failures.ts';
import type { Device } from '../domain/devices.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deviceQuery } from '../lists/query.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { badParameter } from './params.ts';
import { deviceJson, pageJson } from './resources.ts';

const PARAMETERS = ['q', 'owner', 'status', 'sort', 'before'] as const;

/** Which parameter each failure of the shared parser is about. */
const FIELD: Partial<Record<FailureName, string>> = {
  badSearch: 'q',
  badOwner: 'owner',
  badStatus: 'status',
  badSort: 'sort',
  badCursor: 'before',
};

export function apiDevicesList(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: PARAMETERS }, async (c, viewer) => {
    const query = deviceQuery(c);
    if (!query.ok) return badParameter(c, query.failure, FIELD);
    const q = query.value;
    const staleBefore = ctx.clock.now() - ctx.config.staleAfterMs;
    const page = await ctx.store.devicesVisibleTo(
      viewer,
      { before: q.before, limit: PAGE_SIZE },
      { q: q.q, owner: q.owner, status: q.status, sort: q.sort, staleBefore },
    );
    const item = (d: Device) => deviceJson(d, staleBefore);
    return c.json(pageJson(page, item));
  });
}
