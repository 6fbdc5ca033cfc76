/**
 * GET /api/v1/audit (CONTRACT sections 9 and 11), admin tokens only: the audit trail as JSON, with
 * the console's filters (one parser for both), newest first, paged by `before`.
 */
import type { Handler } from 'hono';
import { AUDIT_PARAMETERS } from '../audit/audit_query.ts';
import type { FailureName } from '../http/failures.ts';
import { auditRequest } from '../lists/audit.ts';
import { auditJson } from '../audit/audit_json.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { badParameter } from './params.ts';
import { pageJson } from './resources.ts';

const FIELD: Partial<Record<FailureName, string>> = {
  badAuditActor: 'actor',
  badAuditEvent: 'event',
  badDeviceFilter: 'device',
  badDate: 'since',
  badDateRange: 'until',
  badCursor: 'before',
};

export function apiAudit(ctx: Ctx): Handler<UiEnv> {
  const parameters = [...AUDIT_PARAMETERS, 'before'];
  return apiOperation(ctx, { parameters, admin: 'reading the audit trail' }, async (c) => {
    const req = auditRequest(c);
    if (!req.ok) return badParameter(c, req.failure, FIELD);
    const page = await ctx.store.auditPage(req.filter, { before: req.before, limit: PAGE_SIZE });
    return c.json(pageJson(page, auditJson));
  });
}
