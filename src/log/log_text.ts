/**
 * A value from a request as it goes into a log: the JSON lines of docs/contract.md section 8, the
 * audit trail's syslog messages (section 13), any text a person reads line by line. A username may
 * hold CR and LF that start a forged record, a NUL that ends one early, C1 controls a terminal
 * obeys, or a bidi override that makes `nimda` read `admin` (security review finding 5, issue 34).
 * Records keep the value as it came; each sink writes it through one of the two functions here,
 * so no request can add a line, a control or a reordering to what an operator reads.
 */
import { VISIBLE_CHAR } from '../domain/names.ts';

/**
 * What a log never writes as it is: every character a console name may not hold (VISIBLE_CHAR:
 * C0, DEL, C1, bidi overrides and other format characters, lone surrogates, unassigned code
 * points), and the line and paragraph separators U+2028 and U+2029, which some readers break on.
 */
const UNSEEN_SOURCE = String.raw`(?:(?!${VISIBLE_CHAR})[^]|[\u2028\u2029])`;
const UNSEEN = new RegExp(UNSEEN_SOURCE, 'u');
const UNSEEN_ALL = new RegExp(UNSEEN_SOURCE, 'gu');
/** The escape character and what it escapes: `\` must be escaped too, or `\n` typed in a name would read as a line feed. */
const TO_ESCAPE = new RegExp(String.raw`\\|${UNSEEN_SOURCE}`, 'gu');

const SHORT: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** `\uXXXX` for a UTF-16 code unit, as JSON and JavaScript write it. */
function unit(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A value as text in a log line: `\` as `\\`; tab, line feed and carriage return as `\t`, `\n`,
 * `\r`; every other unseen character as `\uXXXX` (`\u{XXXXX}` beyond the BMP). What it writes is
 * visible, on one line, and reads back unambiguously as JavaScript string escapes do.
 */
export function logText(value: string): string {
  return value.replace(TO_ESCAPE, (c) => {
    const short = SHORT[c];
    if (short !== undefined) return short;
    const code = c.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : unit(code);
  });
}

/**
 * A record as one JSON line: JSON.stringify already escapes `"`, `\`, C0 and lone surrogates;
 * the other unseen characters (DEL, C1, U+2028, bidi overrides…) are written as `\uXXXX` too.
 * Only string contents can hold them, so the JSON parses back to the same value.
 */
export function logJson(value: object): string {
  const json = JSON.stringify(value);
  if (!UNSEEN.test(json)) return json;
  return json.replace(UNSEEN_ALL, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += unit(c.charCodeAt(i));
    return out;
  });
}
