/**
 * The audit trail's parameters (docs/contract.md sections 9 and 11): GET /audit, GET /audit.jsonl and
 * GET /api/v1/audit. Each filter is optional, a blank one (as a GET form sends it) does not
 * filter, values are read without surrounding white space, and a repeated one is named. Dates
 * are UTC days: `since` from the start of its day, `until` to the end of its day, both inclusive.
 */
import { AUDIT_CURSOR } from '../domain/paging.ts';
import type { AuditFilter } from '../domain/audit.ts';
import { AUDITED_EVENTS } from '../events/catalogue.ts';
import {
  cursor,
  cursorParameter,
  day,
  dayRange,
  declareList,
  deviceId,
  oneOf,
  sinceNotAfterUntil,
  subject,
  type Values,
} from './parameters.ts';

export const AUDIT = declareList({
  parameters: {
    actor: {
      kind: subject({ system: true, device: true }),
      failure: 'badAuditActor',
      about: 'an account subject, `system`, or `device:<id>` for what a device did',
      label: 'Actor',
      shown: 'actor is',
      placeholder: 'system, local:admin, oidc:… or device:…',
    },
    event: {
      kind: oneOf([...AUDITED_EVENTS].sort(), 'EVENT'),
      failure: 'badAuditEvent',
      about: 'an audited event',
      label: 'Event',
      shown: 'event is',
    },
    device: { kind: deviceId(), failure: 'badDeviceFilter', about: 'a device id', label: 'Device', shown: 'device is' },
    since: {
      kind: day(),
      failure: 'badDate',
      about: 'on or after this day (UTC)',
      label: 'Since (UTC day, inclusive)',
      shown: 'on or after',
    },
    until: {
      kind: day(),
      failure: 'badDate',
      about: 'on or before this day (UTC)',
      label: 'Until (UTC day, inclusive)',
      shown: 'on or before',
    },
    before: cursorParameter(cursor(AUDIT_CURSOR)),
  },
  blank: 'absent',
  repeated: { failure: 'repeatedParameter', named: true },
  trim: true,
  across: sinceNotAfterUntil,
});

export type AuditQuery = Values<typeof AUDIT.parameters>;

/** The store's audit filter for a parsed query. */
export function auditFilter(q: AuditQuery): AuditFilter {
  const { since, until } = dayRange(q);
  return { actor: q.actor, event: q.event, device: q.device, since, until };
}
