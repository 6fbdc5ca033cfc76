/**
 * GET /api/v1/devices (CONTRACT section 11): the device list of the console as JSON, with the same
 * filters, sorts, keyset cursor (`before`) and scoping, for the account the token stands for.
 * Parameters are checked strictly: an unknown one, a repeated one or a bad value is a 400 problem
 * that names it.
 */
import type { Handler } from 'hono';
import type { FailureName } from '../http/failures.ts';
import type { Device } from '../store/store.ts';
import type { Ctx, UiEnv } from '../ui/deps.ts';
import { deviceQuery } from '../ui/list_query.ts';
import { PAGE_SIZE } from '../ui/page_helpers.ts';
import { apiViewer } from './auth.ts';
import { badParameter, strictParameters } from './params.ts';
import { deviceJson } from './resources.ts';

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
  return async function apiDevicesListHandler(c) {
    const viewer = await apiViewer(ctx, c);
    if (viewer instanceof Response) return viewer;
    const strict = strictParameters(c, PARAMETERS);
    if (strict) return strict;
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
    c.header('Cache-Control', 'no-store');
    return c.json({ items: page.items.map(item), ...(page.next === undefined ? {} : { next: page.next }) });
  };
}
