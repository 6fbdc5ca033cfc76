/**
 * Request bodies of the JSON API, read strictly (docs/contract.md section 11): `application/json`, at most
 * 8 KiB, at every body's minimum rate (http/body.ts), one object whose fields are all known and of their
 * type. Every failure is a problem naming the field at fault, so a script can tell which of its
 * inputs to fix; nothing is acted on until the whole body has passed.
 *
 * The fields come back as text, as a form's would, so the API and the console hand the same values
 * to the same checks (the console's parsers then apply each field's own rule and range).
 */
import type { Context } from 'hono';
import { BodyError, readBody } from '../http/body.ts';
import { problem } from './problem.ts';
import { repeatedName } from '../http/duplicate_keys.ts';
import { labelKeysFromJson, labelLines, labelsFromJson } from '../domain/labels.ts';

export const JSON_LIMIT = 8192;

/**
 * A field's JSON type. `labels` is an object of label values, `keys` an array of label keys
 * (docs/contract.md section 12): each checked here against the label rules, naming the label at
 * fault, and handed on as a form would give it (one `key=value`, or one key, a line).
 */
/**
 * `strings`: an array of at most LIST_MAX strings (a webhook's events), given in `lists`. `json`:
 * any JSON value, given as parsed in `values`, for an operation that checks a nested shape itself
 * (a collection's devices and filter, api/collection_body.ts).
 */
export type FieldType = 'string' | 'integer' | 'labels' | 'keys' | 'strings' | 'json';

export const LIST_MAX = 64;

export type JsonFields =
  | { ok: true; fields: Map<string, string>; lists: Map<string, string[]>; values: Map<string, unknown> }
  | { ok: false; response: Response };

const MEDIA_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;

/**
 * The body's fields, each checked against `schema`; `required` ones must be present. `limit` is
 * JSON_LIMIT but for an operation whose body must hold more (a collection of 1000 devices).
 */
export async function jsonFields(
  c: Context,
  schema: Record<string, FieldType>,
  required: readonly string[] = [],
  limit = JSON_LIMIT,
): Promise<JsonFields> {
  const refuse = (status: 400 | 408 | 413 | 415, title: string, detail: string, field?: string) => ({
    ok: false as const,
    response: problem(c, status, title, detail, field === undefined ? {} : { field }),
  });
  if (!MEDIA_TYPE.test(c.req.header('content-type') ?? ''))
    return refuse(415, 'unsupported media type', 'the body must be application/json');
  let text: string;
  try {
    const bytes = await readBody(c.req.raw, { limit });
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    const code = err instanceof BodyError ? err.code : undefined;
    if (code === 'too-large') return refuse(413, 'body too large', `the body must be at most ${limit} bytes`);
    if (code === 'too-slow') return refuse(408, 'request timeout', 'the body arrived too slowly');
    if (code === 'cut-short') return refuse(408, 'request timeout', 'the body ended before its declared length');
    return refuse(400, 'malformed body', 'the body is not UTF-8 text');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse(400, 'malformed body', 'the body is not JSON');
  }
  // JSON.parse keeps the last of two members of one name: a body that gives one twice (two values
  // for one label) is refused, not read as the last.
  const twice = repeatedName(text);
  if (twice !== undefined)
    return refuse(400, 'malformed body', `the name ${JSON.stringify(twice)} is given twice in one object`);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return refuse(400, 'malformed body', 'the body must be a JSON object');
  const fields = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const values = new Map<string, unknown>();
  for (const [name, value] of Object.entries(body)) {
    const type = Object.hasOwn(schema, name) ? schema[name] : undefined;
    if (type === undefined) return refuse(400, 'unknown field', `${name} is not a field of this operation`, name);
    if (type === 'string' && typeof value !== 'string')
      return refuse(400, 'bad field', `${name} must be a string`, name);
    if (type === 'integer' && !Number.isSafeInteger(value))
      return refuse(400, 'bad field', `${name} must be a whole number`, name);
    if (type === 'labels' || type === 'keys') {
      const read = type === 'labels' ? labelsFromJson(value, name) : labelKeysFromJson(value, name);
      if (!read.ok) return refuse(400, 'bad field', read.error, name);
      fields.set(name, Array.isArray(read.value) ? read.value.join('\n') : labelLines(read.value));
      continue;
    }
    if (type === 'json') {
      values.set(name, value);
      continue;
    }
    if (type === 'strings') {
      if (!Array.isArray(value) || value.length > LIST_MAX || !value.every((v) => typeof v === 'string'))
        return refuse(400, 'bad field', `${name} must be an array of at most ${LIST_MAX} strings`, name);
      lists.set(name, value as string[]);
      continue;
    }
    fields.set(name, String(value));
  }
  for (const name of required)
    if (!fields.has(name) && !lists.has(name) && !values.has(name))
      return refuse(400, 'missing field', `${name} is required`, name);
  return { ok: true, fields, lists, values };
}
