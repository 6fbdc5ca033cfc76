/**
 * Which log records the audit trail stores, and how one becomes a stored record (CONTRACT
 * sections 8 and 9): the sign-ins and refusals of section 8 and the console's actions, each with
 * its actor, client, device and run in columns and the other fields in a short `detail`.
 */
import type { LogFields } from '../log/logger.ts';
import type { AuditRecord } from '../domain/audit.ts';

/** The audited events are an enumeration of the domain (the audit list's event filter offers them). */
export { AUDITED_EVENTS } from '../domain/audit.ts';

/**
 * Fields never copied into `detail`, whatever the event: a handler that logged one of these by
 * mistake would otherwise store it for a year. The section 8 rule says no record holds them.
 */
const NEVER_STORED = /password|secret|credential|cookie|code|hash|id_token|csrf|link/i;

/** The columns, and the fields the columns already hold, so `detail` does not repeat them. */
const IN_COLUMNS = new Set(['account', 'client', 'device', 'run', 'level', 'event', 'time']);

/** `detail` is short: a page shows it whole, and a record is one line. */
export const DETAIL_MAX = 500;

/** The stored form of a log record; `local:<user>` is the actor of a break-glass sign-in (CONTRACT section 4). */
export function auditRecord(at: number, event: string, fields: LogFields): AuditRecord {
  const text = (value: unknown) => (value === undefined || value === null ? null : String(value));
  const account =
    text(fields.account) ??
    (event.startsWith('login.local.') && fields.user !== undefined ? `local:${String(fields.user)}` : null);
  const detail = Object.entries(fields)
    .filter(([name, value]) => !IN_COLUMNS.has(name) && !NEVER_STORED.test(name) && value !== undefined)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(' ');
  return {
    at,
    event,
    account,
    client: text(fields.client),
    device: text(fields.device),
    run: text(fields.run),
    detail: detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX - 1)}…` : detail,
  };
}
