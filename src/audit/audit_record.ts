/**
 * How an audited event becomes a stored record (docs/contract.md sections 8 and 9; which events are
 * audited is the catalogue's `audited`, src/events/catalogue.ts): its actor, client, device and
 * run in columns and the other fields in a short `detail`.
 */
import type { AuditRecord } from '../domain/audit.ts';
import type { AnyEvent, Fields } from '../events/catalogue.ts';

/**
 * Fields never copied into `detail`, whatever the event: a handler that logged one of these by
 * mistake would otherwise store it for a year. The section 8 rule says no record holds them.
 */
const NEVER_STORED = /password|secret|credential|cookie|code|hash|id_token|csrf|link/i;

/** The columns, and the fields the columns already hold, so `detail` does not repeat them. */
const IN_COLUMNS = new Set(['account', 'client', 'device', 'run', 'level', 'event', 'time']);

/** `detail` is short: a page shows it whole, and a record is one line. */
export const DETAIL_MAX = 500;

/**
 * The stored form of an audited event (the catalogue says which are). An entry's `auditAccount`
 * names the actor: `local:<user>` for a break-glass sign-in (docs/contract.md section 4),
 * `device:<id>` for what a device did (section 22: the device, not its owner); the `account` field
 * such an event also carries (the device's owner) is kept in `detail` as `owner`.
 */
export function auditRecord(at: number, event: AnyEvent, fields: Fields): AuditRecord {
  const text = (value: unknown) => (value === undefined || value === null ? null : String(value));
  const from = 'auditAccount' in event ? event.auditAccount : undefined;
  const named = from === undefined ? undefined : fields[from.field];
  const account = named === undefined || named === null ? text(fields.account) : `${from?.prefix}${String(named)}`;
  const owner = account !== text(fields.account) && fields.account != null ? [['owner', fields.account] as const] : [];
  const detail = [...owner, ...Object.entries(fields)]
    .filter(([name, value]) => !IN_COLUMNS.has(name) && !NEVER_STORED.test(name) && value !== undefined)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(' ');
  return {
    at,
    event: event.name,
    account,
    client: text(fields.client),
    device: text(fields.device),
    run: text(fields.run),
    detail: detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX - 1)}…` : detail,
  };
}
