/**
 * Privacy levels applied on the device, before upload, so the server never receives what a level
 * excludes (CONTRACT section 6; README "Privacy levels" documents exactly what each removes):
 *
 * - full: the file as it is.
 * - redacted: e-mail addresses, IPv4 and IPv6 addresses, and the value of every field whose name
 *   marks a secret or a person (in `key=value`, `key: value` and JSON `"key": value` form) are
 *   replaced by `[redacted]`. Everything else is kept byte for byte.
 * - minimal: only a JSON summary: byte and line counts, and for a JSON object its top-level
 *   numbers and booleans. No text of the run leaves the device.
 */
export type PrivacyLevel = 'full' | 'redacted' | 'minimal';

export const REDACTED = '[redacted]';

const SENSITIVE_KEY =
  '(?:password|passwd|pwd|secret|token|api[_-]?key|key|credential|auth\\w*|cookie|session|user(?:name)?|login|owner|operator|name|e-?mail|host(?:name)?|ip|address|serial|location|lat(?:itude)?|lon(?:gitude)?|phone)';

const patterns: Array<[RegExp, (match: string, ...groups: string[]) => string]> = [
  // JSON: "key": "value" or "key": 123 — the value is replaced, the key kept.
  [
    new RegExp(`("${SENSITIVE_KEY}"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|-?[0-9][0-9.eE+-]*)`, 'gi'),
    (_m, k) => `${k}"${REDACTED}"`,
  ],
  // key=value and key: value, up to the end of the line or the next whitespace-separated pair.
  [new RegExp(`(\\b${SENSITIVE_KEY}\\s*[=:]\\s*)(?!\\s)([^\\s,;&"]+)`, 'gi'), (_m, k) => `${k}${REDACTED}`],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, () => REDACTED],
  [/\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g, () => REDACTED],
  [
    /\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:)+:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?\b/gi,
    () => REDACTED,
  ],
];

export function applyPrivacy(
  bytes: Uint8Array,
  contentType: string,
  level: PrivacyLevel,
): { body: Uint8Array; contentType: string } {
  if (level === 'full') return { body: bytes, contentType };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (level === 'redacted') {
    const redacted = patterns.reduce((t, [re, replace]) => t.replace(re, replace as (m: string) => string), text);
    return { body: new TextEncoder().encode(redacted), contentType };
  }
  const summary: Record<string, number | boolean | string> = {
    privacy: 'minimal',
    bytes: bytes.byteLength,
    lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
  };
  try {
    const doc: unknown = JSON.parse(text);
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
      for (const [k, v] of Object.entries(doc)) {
        if ((typeof v === 'number' || typeof v === 'boolean') && !new RegExp(`^${SENSITIVE_KEY}$`, 'i').test(k)) {
          summary[`field.${k}`] = v;
        }
      }
    }
  } catch {
    // Not JSON: the counts are the whole summary.
  }
  return { body: new TextEncoder().encode(`${JSON.stringify(summary)}\n`), contentType: 'application/json' };
}
