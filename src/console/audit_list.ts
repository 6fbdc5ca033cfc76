/**
 * GET /audit: admin only (docs/contract.md section 9); the audit trail, filtered, newest first, 50 a
 * page. A bad filter is answered 400 with the page itself, the form as sent (section 22).
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { auditPage } from '../views/audit.ts';
import { AUDIT, auditFilter } from '../lists/audit.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { chrome, listQuery } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function auditList(ctx: Ctx): Handler<UiEnv> {
  return async function auditListHandler(c) {
    const q = listQuery(c, AUDIT);
    if (!q.ok) return page(c, auditPage(chrome(ctx, c), { page: { items: [] }, query: q.sent, error: q.error }), 400);
    const records = await ctx.store.auditPage(auditFilter(q.values), { before: q.values.before, limit: PAGE_SIZE });
    return page(c, auditPage(chrome(ctx, c), { page: records, query: q.values }));
  };
}
