/** The filters of the audit pages as written in the query: shown on the page and carried to the next one. */

export const AUDIT_PARAMETERS = ['actor', 'event', 'device', 'since', 'until'] as const;

export type AuditQuery = Record<(typeof AUDIT_PARAMETERS)[number], string>;

/** The query string of the filters that apply, with `extra` (a cursor) after them; empty when none. */
export function auditQueryString(query: AuditQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of AUDIT_PARAMETERS) if (query[name]) params.set(name, query[name]);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}
