/**
 * GET /audit: admin only (docs/contract.md section 9); the audit trail, filtered, newest first, 50 a
 * page. A bad filter is answered 400 with the page itself, the form as sent (section 22). The page
 * says how many records the filter holds, counted through the list's own statement up to
 * COUNT_UP_TO and kept a few seconds per filter (actions/count_cache.ts).
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { auditPage } from '../views/audit.ts';
import { AUDIT, auditFilter } from '../lists/audit.ts';
import { listQueryString } from '../lists/parameters.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { COUNT_UP_TO, countCache, countedTotal, wholeList } from '../actions/count_cache.ts';
import { chrome, listQuery, pageFrom } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function auditList(ctx: Ctx): Handler<UiEnv> {
  const kept = countCache(ctx.clock);
  return async function auditListHandler(c) {
    const q = listQuery(c, AUDIT);
    if (!q.ok) return page(c, auditPage(chrome(ctx, c), { page: { items: [] }, query: q.sent, error: q.error }), 400);
    const filter = auditFilter(q.values);
    const { before } = q.values;
    const records = await ctx.store.auditPage(filter, { before, limit: PAGE_SIZE });
    // The filter is the query without its cursor; the trail is an administrator's, the same for every one.
    const total =
      wholeList(records, before === undefined, ctx.clock.now()) ??
      (await kept(listQueryString(AUDIT, q.values), (now) =>
        ctx.store.countAudit(filter, COUNT_UP_TO).then((n) => countedTotal(n, now)),
      ));
    const from = pageFrom(c, before === undefined);
    return page(c, auditPage(chrome(ctx, c), { page: records, query: q.values, total, from }));
  };
}
