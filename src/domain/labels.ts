/**
 * Device labels (docs/contract.md section 12): up to 20 `key=value` pairs a device, one value per key.
 * The one place every form, API body, filter and CLI argument is checked; each refusal names the
 * label at fault, so a 400 says which line to mend.
 */

/** 1 to 63 of `a-z 0-9 - _ .`, starting with a letter or a digit. */
export const LABEL_KEY = /^[a-z0-9][a-z0-9._-]{0,62}$/;
/** 0 to 63 of `A-Z a-z 0-9 - _ .`. */
export const LABEL_VALUE = /^[A-Za-z0-9._-]{0,63}$/;
export const MAX_LABELS = 20;
/** How many `label=` filters one device list may combine (all must hold). */
export const MAX_LABEL_FILTERS = 5;

export const LABEL_KEY_RULE = 'a label key is 1 to 63 of a-z, 0-9, -, _ and ., starting with a letter or digit';
export const LABEL_VALUE_RULE = 'a label value is at most 63 of A-Z, a-z, 0-9, -, _ and .';

/** A device's labels, key to value, in key order. */
export type Labels = Readonly<Record<string, string>>;

/** A label filter: that key with that value, or that key with any value. */
export interface LabelSelector {
  key: string;
  value?: string | undefined;
}

export type LabelsRead<T> = { ok: true; value: T } | { ok: false; error: string };

/** Quotes what the caller sent for an error message: short, and never a control character. */
function shown(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(clean.length > 70 ? `${clean.slice(0, 67)}...` : clean);
}

function checkKey(key: string, asWritten: string): string | undefined {
  return LABEL_KEY.test(key) ? undefined : `label ${shown(asWritten)}: ${LABEL_KEY_RULE}`;
}

function checkValue(value: string, asWritten: string): string | undefined {
  return LABEL_VALUE.test(value) ? undefined : `label ${shown(asWritten)}: ${LABEL_VALUE_RULE}`;
}

/** One `key=value`, as a form line, a bulk action's field or a CLI argument gives it. */
export function parseLabel(text: string): LabelsRead<{ key: string; value: string }> {
  const at = text.indexOf('=');
  if (at < 0) return { ok: false, error: `label ${shown(text)}: write it as key=value` };
  const key = text.slice(0, at);
  const value = text.slice(at + 1);
  const error = checkKey(key, text) ?? checkValue(value, text);
  return error === undefined ? { ok: true, value: { key, value } } : { ok: false, error };
}

/** A filter: `key=value` (that label) or `key` (any value). */
export function parseLabelSelector(text: string): LabelsRead<LabelSelector> {
  if (!text.includes('=')) {
    const error = checkKey(text, text);
    return error === undefined ? { ok: true, value: { key: text } } : { ok: false, error };
  }
  return parseLabel(text);
}

/** A label key alone, as `unlabel` and the API's `remove` name one. */
export function parseLabelKey(text: string): LabelsRead<string> {
  const error = checkKey(text, text);
  return error === undefined ? { ok: true, value: text } : { ok: false, error };
}

/** Builds a set from pairs: one value per key and at most 20, or the error naming the label at fault. */
export function labelSet(pairs: Iterable<readonly [string, string]>): LabelsRead<Labels> {
  const set = new Map<string, string>();
  for (const [key, value] of pairs) {
    const written = `${key}=${value}`;
    const error = checkKey(key, written) ?? checkValue(value, written);
    if (error !== undefined) return { ok: false, error };
    if (set.has(key)) return { ok: false, error: `label ${shown(written)}: the key ${key} is given twice` };
    if (set.size === MAX_LABELS)
      return { ok: false, error: `label ${shown(written)}: a device has at most ${MAX_LABELS} labels` };
    set.set(key, value);
  }
  return { ok: true, value: sortedLabels(set) };
}

/** The labels of a form's text area: one `key=value` a line; blank lines are skipped. */
export function parseLabelLines(text: string): LabelsRead<Labels> {
  const pairs: Array<[string, string]> = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const label = parseLabel(line);
    if (!label.ok) return label;
    pairs.push([label.value.key, label.value.value]);
  }
  return labelSet(pairs);
}

/** The labels applied to a set: `set` overrides, `remove` deletes; checked against the limit. */
export function changedLabels(
  current: Labels,
  set: Labels,
  remove: readonly string[],
): LabelsRead<{ labels: Labels; changed: string[] }> {
  const next = new Map(Object.entries(current));
  const changed = new Set<string>();
  for (const key of remove) if (next.delete(key)) changed.add(key);
  for (const [key, value] of Object.entries(set)) {
    if (next.get(key) !== value) changed.add(key);
    next.set(key, value);
  }
  if (next.size > MAX_LABELS) {
    const over = Object.keys(set).find((key) => !Object.hasOwn(current, key)) ?? '';
    return {
      ok: false,
      error: `label ${shown(`${over}=${own(set, over) ?? ''}`)}: a device has at most ${MAX_LABELS} labels`,
    };
  }
  return { ok: true, value: { labels: sortedLabels(next), changed: [...changed].sort() } };
}

/** A set as text, one `key=value` a line: what the device page's form shows. */
export function labelLines(labels: Labels): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

/** A set's value for a key, never an inherited property (`constructor` is a valid key). */
function own(labels: Labels, key: string): string | undefined {
  return Object.hasOwn(labels, key) ? labels[key] : undefined;
}

/** An empty set to fill, from which no key can be inherited (`constructor` is a valid key). */
export function emptyLabels(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

function sortedLabels(set: ReadonlyMap<string, string>): Labels {
  const out = emptyLabels();
  for (const key of [...set.keys()].sort()) out[key] = set.get(key) as string;
  return out;
}

/**
 * The labels of a JSON body (the API's `set`, a mint's `labels`): an object of strings, each
 * checked; or the error naming the label at fault. Absent is no labels.
 */
export function labelsFromJson(value: unknown, field: string): LabelsRead<Labels> {
  if (value === undefined) return labelSet([]);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: `${field} must be an object of key: value labels` };
  const pairs: Array<[string, string]> = [];
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') return { ok: false, error: `label ${shown(key)}: its value must be a string` };
    pairs.push([key, v]);
  }
  return labelSet(pairs);
}

/** The keys of a JSON body's `remove`: an array of keys, each checked, none twice. */
export function labelKeysFromJson(value: unknown, field: string): LabelsRead<string[]> {
  if (value === undefined) return { ok: true, value: [] };
  if (!Array.isArray(value)) return { ok: false, error: `${field} must be an array of label keys` };
  const keys: string[] = [];
  for (const key of value as unknown[]) {
    if (typeof key !== 'string') return { ok: false, error: `${field} must be an array of label keys` };
    const read = parseLabelKey(key);
    if (!read.ok) return read;
    if (keys.includes(key)) return { ok: false, error: `label ${shown(key)}: the key ${key} is given twice` };
    keys.push(key);
  }
  return { ok: true, value: keys };
}

/** A change that both sets and removes a key asks for two values of it: the error naming it, or undefined. */
export function conflictingChange(set: Labels, remove: readonly string[]): string | undefined {
  const key = remove.find((k) => Object.hasOwn(set, k));
  return key === undefined ? undefined : `label ${shown(key)}: the key ${key} is both set and removed`;
}
