/**
 * Device facts (docs/contract.md section 16): what a device reports about itself, up to 32
 * `key: value` pairs that replace the last report. Operators set labels, devices set facts: a
 * fact's key has a label key's shape (section 12), its value is any string of at most 255 visible
 * characters. The one place every report, enrollment and filter is checked; each refusal names
 * the fact at fault.
 */
import { LABEL_KEY } from './labels.ts';
import { VISIBLE_CHAR } from './names.ts';

export const MAX_FACTS = 32;
/** How many `fact=` filters one device list may combine (all must hold). */
export const MAX_FACT_FILTERS = 5;
export const FACT_VALUE_MAX = 255;
/**
 * 0 to 255 visible characters (code points): no control character, nothing invisible, no lone
 * surrogate, so a fact shows as what it is on the device page and in a log record.
 */
export const FACT_VALUE = new RegExp(`^${VISIBLE_CHAR}{0,${FACT_VALUE_MAX}}$`, 'u');

export const FACT_KEY_RULE = 'a fact key is 1 to 63 of a-z, 0-9, -, _ and ., starting with a letter or digit';
export const FACT_VALUE_RULE = `a fact value is a string of at most ${FACT_VALUE_MAX} printable characters`;

/** The facts the reference client reports (docs/contract.md section 16). */
export const CLIENT_FACTS = ['os', 'os_version', 'arch', 'hostname', 'client_version'] as const;

/** A device's facts, key to value, in key order. */
export type Facts = Readonly<Record<string, string>>;

/** A fact filter: that key with exactly that value. */
export interface FactSelector {
  key: string;
  value: string;
}

export type FactsRead<T> = { ok: true; value: T } | { ok: false; error: string };

/** Quotes what the caller sent for an error message: short, and never a control character. */
function shown(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(clean.length > 70 ? `${clean.slice(0, 67)}...` : clean);
}

/** A fact's error message, naming it by its key. */
export function factError(key: string, why: string): string {
  return `fact ${shown(key)}: ${why}`;
}

/** An empty set to fill, from which no key can be inherited (`constructor` is a valid key). */
export function emptyFacts(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/**
 * The facts of a JSON value (the body of PUT /v1/device/facts, enrollment's `facts`): an object
 * of at most 32 string values, each key and value checked; or the error naming the fact at fault.
 */
export function factsFromJson(value: unknown): FactsRead<Facts> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'facts must be a JSON object of "key": "value" strings' };
  const set = emptyFacts();
  let count = 0;
  for (const [key, v] of Object.entries(value)) {
    if (!LABEL_KEY.test(key)) return { ok: false, error: factError(key, FACT_KEY_RULE) };
    if (typeof v !== 'string') return { ok: false, error: factError(key, 'its value must be a string') };
    if (!FACT_VALUE.test(v)) return { ok: false, error: factError(key, FACT_VALUE_RULE) };
    if (++count > MAX_FACTS) return { ok: false, error: factError(key, `a device reports at most ${MAX_FACTS} facts`) };
    set[key] = v;
  }
  return { ok: true, value: sortedFacts(set) };
}

/** A filter, `key=value` (exact; the value may itself hold `=`). */
export function parseFactSelector(text: string): FactsRead<FactSelector> {
  const at = text.indexOf('=');
  if (at < 0) return { ok: false, error: factError(text, 'write the filter as key=value') };
  const key = text.slice(0, at);
  const value = text.slice(at + 1);
  if (!LABEL_KEY.test(key)) return { ok: false, error: factError(key, FACT_KEY_RULE) };
  if (!FACT_VALUE.test(value)) return { ok: false, error: factError(key, FACT_VALUE_RULE) };
  return { ok: true, value: { key, value } };
}

/** Whether two sets hold the same facts (the reference client reports only a change). */
export function sameFacts(a: Facts, b: Facts): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

function sortedFacts(set: Readonly<Record<string, string>>): Facts {
  const out = emptyFacts();
  for (const key of Object.keys(set).sort()) out[key] = set[key] as string;
  return out;
}
