/**
 * GET /api/v1/audit (docs/contract.md sections 9 and 11), admin tokens only: the audit trail as JSON, with
 * the console's filters (one declaration for both, lists/audit.ts), newest first, paged by `before`.
 */
import type { Handler } from 'hono';
import { AUDIT, auditFilter } from '../lists/audit.ts';
import { parameterNames } from '../lists/parameters.ts';
import { auditJson } from '../audit/audit_json.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { listParameters } from './params.ts';
import { pageJson } from './resources.ts';

export function apiAudit(ctx: Ctx): Handler<UiEnv> {
  const parameters = parameterNames(AUDIT);
  return apiOperation(ctx, { parameters, admin: 'reading the audit trail' }, async (c) => {
    const q = listParameters(c, AUDIT);
    if (q instanceof Response) return q;
    const page = await ctx.store.auditPage(auditFilter(q), { before: q.before, limit: PAGE_SIZE });
    return c.json(pageJson(page, auditJson));
  });
}
