/**
 * An audit record as a syslog message (docs/contract.md section 13): RFC 5424, framed by octet
 * counting (RFC 6587 section 3.4.1, which RFC 5425 prescribes over TLS).
 *
 *     <85>1 2025-01-02T03:04:05.678Z host paddock 4242 device.revoked [paddock@32473 seq="12" …] {"time":…}
 *
 * PRI: facility authpriv (10), since the trail records who signed in and changed what; severity
 * from the event's level in the catalogue (info: notice, warn: warning, error: err). TIMESTAMP is
 * the record's time, MSGID its event, and STRUCTURED-DATA its fields under the SD-ID
 * `paddock@32473` (32473: the example enterprise number of RFC 5612). MSG is the record as JSON
 * in ASCII (non-ASCII characters escaped), so it needs no BOM (RFC 5424 section 6.4).
 */
import type { AuditRecord } from '../domain/audit.ts';
import { eventNamed, type Level } from '../events/catalogue.ts';
import { auditJson } from './audit_json.ts';

/** authpriv: security and authorization messages (RFC 5424 table 1). */
export const SYSLOG_FACILITY = 10;
/** RFC 5424 severities of the catalogue's levels. */
export const SYSLOG_SEVERITY: Record<Level, number> = { debug: 7, info: 5, warn: 4, error: 3 };
/** The SD-ID: a name `@` a private enterprise number (RFC 5424 section 7.2.2). */
export const SD_ID = 'paddock@32473';
export const APP_NAME = 'paddock';

/** Where the messages say they come from (RFC 5424 HOSTNAME and PROCID). */
export interface SyslogOrigin {
  hostname: string;
  procid: string;
}

/** PARAM-VALUE escaping, RFC 5424 section 6.3.3: `"`, `\` and `]` take a backslash. */
export function sdEscape(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

/**
 * A header field (HOSTNAME, APP-NAME, PROCID, MSGID): 1 to `max` printable ASCII characters
 * without spaces, or the NILVALUE `-`.
 */
export function headerField(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return printable === '' ? '-' : printable;
}

/** JSON with every non-ASCII character escaped as \uXXXX: the same value, in ASCII. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The RFC 5424 message of one record (without framing); `seq` is the record's number in the trail. */
export function syslogMessage(record: AuditRecord, seq: number, origin: SyslogOrigin): string {
  const level = eventNamed(record.event)?.level ?? 'info';
  const pri = SYSLOG_FACILITY * 8 + SYSLOG_SEVERITY[level];
  const params: Array<[string, string | null]> = [
    ['seq', String(seq)],
    ['account', record.account],
    ['client', record.client],
    ['device', record.device],
    ['run', record.run],
    ['detail', record.detail === '' ? null : record.detail],
  ];
  const sd = params
    .filter((p): p is [string, string] => p[1] !== null)
    .map(([name, value]) => ` ${name}="${sdEscape(value)}"`)
    .join('');
  const header = [
    `<${pri}>1`,
    new Date(record.at).toISOString(),
    headerField(origin.hostname, 255),
    APP_NAME,
    headerField(origin.procid, 128),
    headerField(record.event, 32),
  ].join(' ');
  return `${header} [${SD_ID}${sd}] ${asciiJson({ seq, ...auditJson(record) })}`;
}

/** Octet-counting framing (RFC 6587 section 3.4.1): the message's length in bytes, a space, the message. */
export function octetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
