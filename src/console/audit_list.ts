/** GET /audit: admin only (CONTRACT section 9); the audit trail, filtered, newest first, 50 a page. */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { auditPage } from '../views/audit.ts';
import { auditRequest } from '../lists/audit.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { chrome } from './page_helpers.ts';

export function auditList(ctx: Ctx): Handler<UiEnv> {
  return async function auditListHandler(c) {
    const req = auditRequest(c);
    if (!req.ok) return fail(c, req.failure, req.detail);
    const records = await ctx.store.auditPage(req.filter, { before: req.before, limit: PAGE_SIZE });
    return page(c, auditPage(chrome(ctx, c), { page: records, query: req.query, first: req.before === undefined }));
  };
}
