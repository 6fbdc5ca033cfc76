/**
 * Strict `application/x-www-form-urlencoded` parsing (WHATWG URL standard, section 5.1), stricter
 * than URLSearchParams: a bad percent escape, bytes that are not UTF-8 or a repeated field make
 * the whole form malformed instead of being silently repaired. Only the fields that name the items
 * of a bulk action (docs/contract.md section 9: `device`, `run`), a webhook's events (section
 * 13: `event`) and the device list's label filters a collection is asked with (section 15:
 * `label`) may repeat.
 */
import { BodyError, type BodyFailure, readBody } from './body.ts';

export const FORM_LIMIT = 65_536;
/**
 * At most this many fields besides `device`: a collection names up to 1000 devices
 * (docs/contract.md section 15), so `device` fields are bounded by FORM_LIMIT alone, and more
 * than 1000 are refused by the action by name (tooManyNamedDevices), not as a malformed form.
 */
const MAX_FIELDS = 64;

/**
 * The fields that a form may repeat: the checked items of a bulk action, a webhook's events, the
 * label and fact filters of a collection asked from the device list.
 */
const REPEATABLE: ReadonlySet<string> = new Set(['device', 'run', 'event', 'label', 'fact']);

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

/** `too-slow`: the form did not arrive whole in time (body.ts's rule), or never will (cut short): 408. */
export type FormFailure = 'too-large' | 'too-slow' | 'malformed';

export type FormResult = { ok: true; fields: FormFields } | { ok: false; reason: FormFailure };

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
  let counted = 0;
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : pair.slice(eq + 1));
    if (name === undefined || value === undefined || !fields.add(name, value)) return undefined;
    if (name !== 'device' && ++counted > MAX_FIELDS) return undefined;
  }
  return fields;
}

/** How a form read that failed is answered (a form takes no budget: 'over-budget' cannot happen). */
const FORM_FAILURES = {
  'too-large': 'too-large',
  'too-slow': 'too-slow',
  'cut-short': 'too-slow',
  'over-budget': 'malformed',
  unreadable: 'malformed',
} as const satisfies Record<BodyFailure, FormFailure>;

/** Reads and parses a form post: the media type must be urlencoded (charset, if any, UTF-8). */
export async function readForm(req: Request): Promise<FormResult> {
  const type = (req.headers.get('content-type') ?? '').toLowerCase().replaceAll(' ', '');
  if (type !== 'application/x-www-form-urlencoded' && type !== 'application/x-www-form-urlencoded;charset=utf-8') {
    return { ok: false, reason: 'malformed' };
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBody(req, { limit: FORM_LIMIT });
  } catch (err) {
    return { ok: false, reason: err instanceof BodyError ? FORM_FAILURES[err.code] : 'malformed' };
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
