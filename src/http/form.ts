/**
 * Strict `application/x-www-form-urlencoded` parsing (WHATWG URL standard, section 5.1), stricter
 * than URLSearchParams: a bad percent escape, bytes that are not UTF-8 or a repeated field make
 * the whole form malformed instead of being silently repaired. Only the fields that name the items
 * of a bulk action (docs/contract.md section 9: `device`, `run`) and a webhook's events (section
 * 13: `event`) may repeat, one per checked box.
 */
import { BodyTooLarge, readStream, TooSlow } from './body.ts';

export const FORM_LIMIT = 65_536;

/**
 * A form is small: after 10 s it must have come at 1 KiB/s on average, so a client that sends part
 * of one and stalls (or half-closes) holds its connection for seconds, not for the server's
 * five-minute request timeout.
 */
export const FORM_RATE = { graceMs: 10_000, bytesPerSecond: 1024 };
const MAX_FIELDS = 64;

/** The fields that a form may repeat: the checked items of a bulk action, a webhook's events. */
const REPEATABLE: ReadonlySet<string> = new Set(['device', 'run', 'event']);

/** The form's fields: `get` gives a field's first value, `all` every value of a repeatable one. */
export class FormFields extends Map<string, string> {
  readonly #lists = new Map<string, string[]>();

  add(name: string, value: string): boolean {
    if (!this.has(name)) {
      this.set(name, value);
      this.#lists.set(name, [value]);
      return true;
    }
    if (!REPEATABLE.has(name)) return false;
    this.#lists.get(name)?.push(value);
    return true;
  }

  all(name: string): string[] {
    return [...(this.#lists.get(name) ?? [])];
  }
}

export type FormResult =
  { ok: true; fields: FormFields } | { ok: false; reason: 'too-large' | 'too-slow' | 'malformed' };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeComponent(text: string): string | undefined {
  const plus = text.replaceAll('+', ' ');
  if (!/^(?:[^%]|%[0-9A-Fa-f]{2})*$/.test(plus)) return undefined;
  const bytes = Buffer.from(
    plus.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  );
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Parses an urlencoded body; undefined when malformed. */
export function parseForm(body: string): FormFields | undefined {
  const fields = new FormFields();
  if (body === '') return fields;
  const pairs = body.split('&');
  if (pairs.length > MAX_FIELDS) return undefined;
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : pair.slice(eq + 1));
    if (name === undefined || value === undefined || !fields.add(name, value)) return undefined;
  }
  return fields;
}

/** Reads and parses a form post: the media type must be urlencoded (charset, if any, UTF-8). */
export async function readForm(req: Request): Promise<FormResult> {
  const type = (req.headers.get('content-type') ?? '').toLowerCase().replaceAll(' ', '');
  if (type !== 'application/x-www-form-urlencoded' && type !== 'application/x-www-form-urlencoded;charset=utf-8') {
    return { ok: false, reason: 'malformed' };
  }
  let bytes: Uint8Array;
  try {
    bytes = await readStream(req, FORM_LIMIT, { take: () => true, minRate: FORM_RATE });
  } catch (err) {
    if (err instanceof TooSlow) return { ok: false, reason: 'too-slow' };
    return { ok: false, reason: err instanceof BodyTooLarge ? 'too-large' : 'malformed' };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const fields = parseForm(text);
  return fields ? { ok: true, fields } : { ok: false, reason: 'malformed' };
}
