/**
 * Facts as a device sends them (docs/contract.md section 16), in the body of PUT /v1/device/facts
 * or as enrollment's `facts`: JSON text in UTF-8, each fact checked by domain/facts.ts. A refusal
 * names the fact at fault wherever the body allows it: a key given twice (which JSON.parse would
 * quietly read as its last value), or bytes that are not UTF-8 within one fact.
 */
import { factError, factsFromJson, type Facts, type FactsRead } from '../domain/facts.ts';
import { duplicateKey } from '../http/duplicate_keys.ts';

export type BodyRead = { ok: true; value: unknown; text: string } | { ok: false; error: string };

/** The body's JSON; bytes that are not UTF-8 are refused, naming the fact that holds them when one does. */
export function factsJson(bytes: Uint8Array, path: readonly string[]): BodyRead {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: notUtf8(bytes, path) };
  }
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch {
    return { ok: false, error: 'the body is not JSON' };
  }
}

/** The facts at `path` of a body read by factsJson: checked, and no key given twice. */
export function factsAt(read: { value: unknown; text: string }, path: readonly string[]): FactsRead<Facts> {
  let value = read.value;
  for (const name of path) value = (value as Record<string, unknown>)[name];
  const facts = factsFromJson(value);
  if (!facts.ok) return facts;
  const twice = duplicateKey(read.text, path);
  if (twice !== undefined) return { ok: false, error: factError(twice, 'the key is given twice') };
  return facts;
}

/** Which fact holds the bytes that are not UTF-8 (each read as U+FFFD), when the body is JSON otherwise. */
function notUtf8(bytes: Uint8Array, path: readonly string[]): string {
  const why = 'its key or value is not valid UTF-8';
  try {
    let value: unknown = JSON.parse(new TextDecoder('utf-8').decode(bytes));
    for (const name of path) value = (value as Record<string, unknown> | null)?.[name];
    if (value && typeof value === 'object')
      for (const [key, v] of Object.entries(value))
        if (key.includes('\ufffd') || (typeof v === 'string' && v.includes('\ufffd'))) return factError(key, why);
  } catch {
    // Not JSON either: nothing to name.
  }
  return 'the body is not valid UTF-8';
}
