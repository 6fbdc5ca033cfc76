/** GET /audit: admin only (docs/contract.md section 9); the audit trail, filtered, newest first, 50 a page. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { auditPage } from '../views/audit.ts';
import { AUDIT, auditFilter } from '../lists/audit.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { chrome, listParameters } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function auditList(ctx: Ctx): Handler<UiEnv> {
  return async function auditListHandler(c) {
    const q = listParameters(c, AUDIT);
    if (q instanceof Response) return q;
    const records = await ctx.store.auditPage(auditFilter(q), { before: q.before, limit: PAGE_SIZE });
    return page(c, auditPage(chrome(ctx, c), { page: records, query: q }));
  };
}
