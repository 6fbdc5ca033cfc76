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
 *
 * A record's values come from requests (a failed sign-in's username): none reaches the frame with
 * a control character, a line break or a bidi override in it (security review finding 5, issue
 * 34). PARAM-VALUEs are written through logText, MSG is printable ASCII, and the header fields are
 * printable ASCII by construction.
 */
import type { AuditRecord } from '../domain/audit.ts';
import { eventNamed, type Level } from '../events/catalogue.ts';
import { logText } from '../log/log_text.ts';
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

/**
 * A PARAM-VALUE (RFC 5424 section 6.3.3, which escapes only `"`, `\` and `]`): the value as logText
 * writes it, so `\` is `\\` as the RFC wants and a line feed is `\n`, not a second record; then
 * `"` and `]` take a backslash. A collector that unescapes as the RFC says gets the value itself
 * back when it holds nothing unseen, and otherwise keeps our `\n` as written (a backslash before
 * another character is taken literally); there a typed `\n` and a line feed read alike, and the
 * record's exact value is in MSG.
 */
export function sdEscape(value: string): string {
  return logText(value).replace(/["\]]/g, (c) => `\\${c}`);
}

/** An SD-NAME (RFC 5424 section 6.3.2): 1 to 32 printable ASCII characters but `=`, space, `]` and `"`. */
const SD_NAME = /^[\x21\x23-\x3c\x3e-\x5c\x5e-\x7e]{1,32}$/;

/** The SD-ID and PARAM-NAMEs are ours, never from a request; a wrong one is a bug, not input. */
export function sdName(name: string): string {
  if (!SD_NAME.test(name)) throw new TypeError(`syslog: not an RFC 5424 SD-NAME: ${JSON.stringify(name)}`);
  return name;
}

/**
 * A header field (HOSTNAME, APP-NAME, PROCID, MSGID): 1 to `max` printable ASCII characters
 * without spaces, or the NILVALUE `-`.
 */
export function headerField(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return printable === '' ? '-' : printable;
}

/**
 * JSON with every non-ASCII character escaped as \uXXXX: the same value, in printable ASCII (JSON
 * already escapes C0), so stricter than logJson (src/log/log_text.ts) and safe as MSG.
 */
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
    .map(([name, value]) => ` ${sdName(name)}="${sdEscape(value)}"`)
    .join('');
  const header = [
    `<${pri}>1`,
    new Date(record.at).toISOString(),
    headerField(origin.hostname, 255),
    headerField(APP_NAME, 48),
    headerField(origin.procid, 128),
    headerField(record.event, 32),
  ].join(' ');
  return `${header} [${sdName(SD_ID)}${sd}] ${asciiJson({ seq, ...auditJson(record) })}`;
}

/** Octet-counting framing (RFC 6587 section 3.4.1): the message's length in bytes, a space, the message. */
export function octetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
