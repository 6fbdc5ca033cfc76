/**
 * Privacy levels applied on the device, before upload, so the server never receives what a level
 * excludes (CONTRACT section 6; README "Privacy levels" documents exactly what each removes):
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
import type { PrivacyLevel } from '../domain/privacy.ts';

export type { PrivacyLevel };

export const REDACTED = '[redacted]';

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
function redactJsonFields(text: string): string {
  // A key starts at a quote that is not itself escaped (so a run of \" costs one step each).
  const key = /(?<!\\)"((?:[^"\\\n]|\\.){1,256})"\s*:\s*/g;
  let out = '';
  let last = 0;
  for (let m = key.exec(text); m !== null; m = key.exec(text)) {
    const valueAt = m.index + m[0].length;
    if (valueAt >= text.length || !sensitiveName(m[1] ?? '')) continue;
    const end = jsonValueEnd(text, valueAt);
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

function redactTextFields(text: string): string {
  return text
    .replace(LINE_FIELD, (match, name: string, separator: string) =>
      wholeLineName(name) ? `${name}${separator}${REDACTED}` : match,
    )
    .replace(TEXT_FIELD, (match, name: string, separator: string, value: string) => {
      if (!sensitiveName(name)) return match;
      const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
      return `${name}${separator}${quote}${REDACTED}${quote}`;
    });
}

const ADDRESSES: RegExp[] = [
  // Bounded, and starting only where a run of address characters starts: linear on any input.
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}/g,
  /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g,
  /\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:)+:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?\b/gi,
];

export function redactText(text: string): string {
  const fields = redactTextFields(redactJsonFields(text));
  return ADDRESSES.reduce((t, re) => t.replace(re, REDACTED), fields);
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
        const plainName = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k) && !sensitiveName(k);
        if ((typeof v === 'number' || typeof v === 'boolean') && plainName) summary[`field.${k}`] = v;
      }
    }
  } catch {
    // Not JSON: the counts are the whole summary.
  }
  return { body: new TextEncoder().encode(`${JSON.stringify(summary)}\n`), contentType: 'application/json' };
}
