/** An audit record as JSON, in the console's JSON lines (GET /audit.jsonl) and in the API (GET /api/v1/audit). */
import type { AuditRecord } from '../domain/audit.ts';

/** The time as the log records write it, then the columns. */
export function auditJson(r: AuditRecord) {
  const { at, ...rest } = r;
  return { time: new Date(at).toISOString(), ...rest };
}
