/**
 * The filters of GET /audit and GET /audit.jsonl (CONTRACT section 9), read once for both: each
 * is optional, an empty field (as a GET form sends it) does not filter, and each bad value is its
 * own plain-text 400. Dates are UTC days: `since` from the start of its day, `until` to the end
 * of its day, both inclusive.
 */
import type { Context } from 'hono';
import { AUDIT_PARAMETERS, type AuditQuery } from '../audit/audit_query.ts';
import { AUDITED_EVENTS } from '../events/catalogue.ts';
import { DEVICE_ID, SUBJECT } from '../domain/ids.ts';
import type { FailureName } from '../http/failures.ts';
import { AUDIT_CURSOR } from '../store/audit.ts';
import type { AuditFilter } from '../domain/audit.ts';
import { dayStart } from './query.ts';

const DAY_MS = 86_400_000;

export type AuditRequest =
  | { ok: true; query: AuditQuery; filter: AuditFilter; before: string | undefined }
  | { ok: false; failure: FailureName; detail?: string };

export function auditRequest(c: Context): AuditRequest {
  const values: Record<string, string> = {};
  for (const name of [...AUDIT_PARAMETERS, 'before']) {
    const given = c.req.queries(name) ?? [];
    if (given.length > 1) return { ok: false, failure: 'repeatedParameter', detail: name };
    values[name] = (given[0] ?? '').trim();
  }
  const query: AuditQuery = {
    actor: values.actor ?? '',
    event: values.event ?? '',
    device: values.device ?? '',
    since: values.since ?? '',
    until: values.until ?? '',
  };
  const filter: AuditFilter = {};
  if (query.actor) {
    if (query.actor !== 'system' && !SUBJECT.test(query.actor)) return { ok: false, failure: 'badAuditActor' };
    filter.actor = query.actor;
  }
  if (query.event) {
    if (!AUDITED_EVENTS.has(query.event)) return { ok: false, failure: 'badAuditEvent' };
    filter.event = query.event;
  }
  if (query.device) {
    if (!DEVICE_ID.test(query.device)) return { ok: false, failure: 'badDeviceFilter' };
    filter.device = query.device;
  }
  if (query.since) {
    filter.since = dayStart(query.since);
    if (filter.since === undefined) return { ok: false, failure: 'badDate' };
  }
  if (query.until) {
    const day = dayStart(query.until);
    if (day === undefined) return { ok: false, failure: 'badDate' };
    filter.until = day + DAY_MS;
  }
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until)
    return { ok: false, failure: 'badDateRange' };
  const before = values.before || undefined;
  if (before !== undefined && !AUDIT_CURSOR.test(before)) return { ok: false, failure: 'badCursor' };
  return { ok: true, query, filter, before };
}
