/**
 * The redaction rules, shared by the device client (which applies them before upload) and the
 * server (whose level check counts what they would still remove from a stored run, CONTRACT
 * section 10). Every pattern is linear on any input: each either starts only where a run of its
 * characters starts (a lookbehind) and is bounded, or cannot backtrack into itself; see
 * test/domain/redaction.test.ts for the adversarial inputs.
 *
 * Privacy levels applied on the device, before upload, so the server never receives what a level
 * excludes (docs/contract.md section 6; README "Privacy levels" documents exactly what each removes):
 *
 * - full: the file as it is.
 * - redacted: e-mail addresses, IPv4 and IPv6 addresses, and the value of every field whose name
 *   marks a secret or a person are replaced by `[redacted]`: in JSON (`"key": value`, whatever the
 *   value: string, number, array, object or null), in `key=value` and `key: value` form (a quoted
 *   value whole), and for header-like fields that carry credentials (`Authorization`, `Cookie`,
 *   any `auth…` name) up to the end of the line. Everything else is kept byte for byte.
 * - minimal: only a JSON summary: byte and line counts, and for a JSON object its top-level
 *   numbers and booleans whose names are plain identifiers not named as above. No other text of
 *   the run leaves the device.
 */
import type { PrivacyLevel } from './privacy.ts';

export type { PrivacyLevel };

export const REDACTED = '[redacted]';

/** The rules by name, as the level check counts them (never what they matched). */
export const RULES = ['json_field', 'credential_line', 'text_field', 'email', 'ipv4', 'ipv6', 'summary'] as const;
export type RuleName = (typeof RULES)[number];
/** Counts per rule of what the rules would remove; a rule that finds nothing is absent. */
export type Findings = Partial<Record<RuleName, number>>;

/** Called once per replacement that changes the text (a value already `[redacted]` is not counted). */
type Tally = (rule: RuleName) => void;
const noTally: Tally = () => undefined;

/** Name parts (split at `_`, `-`, `.` and camelCase) that mark a secret or a person. */
const SENSITIVE_PARTS = new Set([
  'password',
  'passwd',
  'pwd',
  'pass',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'key',
  'credential',
  'credentials',
  'cookie',
  'session',
  'sessionid',
  'user',
  'username',
  'login',
  'owner',
  'operator',
  'name',
  'email',
  'mail',
  'host',
  'hostname',
  'ip',
  'addr',
  'address',
  'serial',
  'location',
  'lat',
  'latitude',
  'lon',
  'lng',
  'longitude',
  'phone',
]);
/** Words that mark a secret even inside a compound name (`dbpassword`, `ACCESSTOKEN`). */
const SENSITIVE_ANYWHERE = /password|passwd|passphrase|secret|token|apikey|credential|cookie|session|auth/i;

function nameParts(name: string): string[] {
  return name
    .split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter((part) => part !== '')
    .map((part) => part.toLowerCase());
}

/** Whether a field of this name has its value redacted. */
export function sensitiveName(name: string): boolean {
  return SENSITIVE_ANYWHERE.test(name) || nameParts(name).some((part) => SENSITIVE_PARTS.has(part));
}

/** Header-like fields whose value is a credential with spaces in it (`Bearer abc`): the rest of the line goes. */
function wholeLineName(name: string): boolean {
  return nameParts(name).some((part) => part.startsWith('auth') || part === 'cookie');
}

/** Where the JSON value starting at `at` ends (tolerant: an unterminated value ends the text). */
function jsonValueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first === '[' || first === '{') {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const c = text[i];
      if (c === '"') i = stringEnd(text, i) - 1;
      else if (c === '[' || c === '{') depth++;
      else if ((c === ']' || c === '}') && --depth === 0) return i + 1;
    }
    return text.length;
  }
  const end = /[\s,}\]]/.exec(text.slice(at));
  return end ? at + end.index : text.length;
}

/** The index after the closing quote of the JSON string that starts at `at`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** `"name": value` anywhere in the text (a JSON document, JSON lines, or JSON inside a log line). */
function redactJsonFields(text: string, tally: Tally): string {
  // A key starts at a quote that is not itself escaped (so a run of \" costs one step each).
  const key = /(?<!\\)"((?:[^"\\\n]|\\.){1,256})"\s*:\s*/g;
  let out = '';
  let last = 0;
  for (let m = key.exec(text); m !== null; m = key.exec(text)) {
    const valueAt = m.index + m[0].length;
    if (valueAt >= text.length || !sensitiveName(m[1] ?? '')) continue;
    const end = jsonValueEnd(text, valueAt);
    if (end - valueAt !== REDACTED.length + 2 || text.slice(valueAt, end) !== `"${REDACTED}"`) tally('json_field');
    out += `${text.slice(last, valueAt)}"${REDACTED}"`;
    last = end;
    key.lastIndex = end;
  }
  return out + text.slice(last);
}

/** A header-like credential field (`Authorization: Bearer abc`): its value is the rest of the line. */
const LINE_FIELD =
  /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{0,64}(?:auth|cookie)[A-Za-z0-9_.-]{0,64})([ \t]*[=:][ \t]*)[^\n]*/gi;
/** `name=value` and `name: value`; a quoted value is taken whole. A name starts a token (no lookback into one). */
const TEXT_FIELD =
  /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)([ \t]*[=:][ \t]*)("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|[^\s,;&"']+)/g;

function redactTextFields(text: string, tally: Tally): string {
  return text
    .replace(LINE_FIELD, (match, name: string, separator: string) => {
      if (!wholeLineName(name)) return match;
      if (match.length - name.length - separator.length !== REDACTED.length || !match.endsWith(REDACTED))
        tally('credential_line');
      return `${name}${separator}${REDACTED}`;
    })
    .replace(TEXT_FIELD, (match, name: string, separator: string, value: string) => {
      if (!sensitiveName(name)) return match;
      const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
      const replaced = `${quote}${REDACTED}${quote}`;
      if (value !== replaced) tally('text_field');
      return `${name}${separator}${replaced}`;
    });
}

const ADDRESSES: Array<[RuleName, RegExp]> = [
  // Bounded, and starting only where a run of address characters starts: linear on any input.
  ['email', /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}/g],
  ['ipv4', /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g],
  ['ipv6', /\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:)+:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?\b/gi],
];

function redactCounting(text: string, tally: Tally): string {
  const fields = redactTextFields(redactJsonFields(text, tally), tally);
  return ADDRESSES.reduce((t, [rule, re]) => t.replace(re, () => (tally(rule), REDACTED)), fields);
}

export function redactText(text: string): string {
  return redactCounting(text, noTally);
}

/**
 * What the rules of `level` would still remove from `text`, counted per rule, never the text they
 * match: the server's level check (docs/contract.md section 10). Linear in the length of the text. At
 * `redacted`, the redaction rules; at `minimal`, those and `summary`: the fields of the text that a
 * minimal summary would not hold (1 when the text is not a JSON object at all). Text the device
 * client produced at that level finds nothing. At `full` nothing is removed.
 */
export function countFindings(text: string, level: PrivacyLevel): Findings {
  const findings: Findings = {};
  if (level === 'full') return findings;
  redactCounting(text, (rule) => (findings[rule] = (findings[rule] ?? 0) + 1));
  if (level === 'minimal') {
    const extra = notSummary(text);
    if (extra > 0) findings.summary = extra;
  }
  return findings;
}

/** How many top-level fields of `text` a minimal summary (as applyPrivacy writes it) would not hold. */
export function notSummary(text: string): number {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 1;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return 1;
  let extra = 0;
  for (const [k, v] of Object.entries(doc)) {
    const counted = (k === 'bytes' || k === 'lines') && typeof v === 'number';
    const field =
      k.startsWith('field.') &&
      (typeof v === 'number' || typeof v === 'boolean') &&
      plainFieldName(k.slice('field.'.length));
    if (!(counted || field || (k === 'privacy' && v === 'minimal'))) extra++;
  }
  return extra;
}

/** A top-level field name a minimal summary keeps (with a number or boolean value). */
function plainFieldName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) && !sensitiveName(name);
}

export function applyPrivacy(
  bytes: Uint8Array,
  contentType: string,
  level: PrivacyLevel,
): { body: Uint8Array; contentType: string } {
  if (level === 'full') return { body: bytes, contentType };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (level === 'redacted') return { body: new TextEncoder().encode(redactText(text)), contentType };
  const summary: Record<string, number | boolean | string> = {
    privacy: 'minimal',
    bytes: bytes.byteLength,
    lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
  };
  try {
    const doc: unknown = JSON.parse(text);
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
      for (const [k, v] of Object.entries(doc)) {
        if ((typeof v === 'number' || typeof v === 'boolean') && plainFieldName(k)) summary[`field.${k}`] = v;
      }
    }
  } catch {
    // Not JSON: the counts are the whole summary.
  }
  return { body: new TextEncoder().encode(`${JSON.stringify(summary)}\n`), contentType: 'application/json' };
}
