/**
 * A SCIM resource's attributes as Paddock holds them: a JSON object whose names are the schema's
 * own spelling (schema.ts), the enterprise extension's under its URN. Values are read here, by
 * their declared type: the value forms identity providers send are taken as RFC 7643 means them
 * (`"active": "False"` from Microsoft Entra ID is the boolean false; a single value where a list is
 * declared is a list of one), and anything else is an invalidValue.
 */
import { invalid, isFailure, type ScimFailure } from './scim_failure.ts';
import { type Attribute, findAttribute, type ResourceSchema } from './scim_schema.ts';

export type Attrs = Record<string, unknown>;

/** The longest string value kept (a display name, an address line). */
export const VALUE_MAX = 1024;

/** The most values one multi-valued attribute keeps, but `members`, which the body's size bounds. */
export const VALUES_MAX = 64;

/** Names a resource's body may carry that are not its attributes, and are not kept. */
const NOT_KEPT = new Set(['schemas', 'id', 'meta', 'password', 'groups']);

/**
 * `value` as attribute `a` holds it; undefined for null (RFC 7644 section 3.5.2: null is
 * unassigned), or the invalidValue failure naming `where`.
 */
export function readValue(a: Attribute, value: unknown, where: string): unknown {
  if (value === null || value === undefined) return undefined;
  if (a.multiValued) {
    const items = Array.isArray(value) ? value : [value];
    if (a.name !== 'members' && items.length > VALUES_MAX)
      return invalid('invalidValue', `${where} holds more than ${VALUES_MAX} values`);
    const read: unknown[] = [];
    for (const [i, item] of items.entries()) {
      const one = readSingle(a, item, `${where}[${i}]`);
      if (isFailure(one)) return one;
      if (one !== undefined) read.push(one);
    }
    return read;
  }
  return readSingle(a, value, where);
}

function readSingle(a: Attribute, value: unknown, where: string): unknown {
  if (value === null) return undefined;
  switch (a.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      // Microsoft Entra ID sends booleans as "True" and "False" (its known SCIM compliance issues).
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      return invalid('invalidValue', `${where} must be a boolean`);
    case 'string':
    case 'reference':
      if (typeof value !== 'string') return invalid('invalidValue', `${where} must be a string`);
      if (value.length > VALUE_MAX) return invalid('invalidValue', `${where} is longer than ${VALUE_MAX} characters`);
      return value;
    case 'complex':
      return readComplex(a.subAttributes ?? [], value, where);
  }
}

/** An object of sub-attributes; names it does not declare are left out (a provider's own, say). */
export function readComplex(subAttributes: readonly Attribute[], value: unknown, where: string): Attrs | ScimFailure {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return invalid('invalidValue', `${where} must be an object`);
  const read: Attrs = {};
  for (const [name, v] of Object.entries(value)) {
    const sub = findAttribute(subAttributes, name);
    if (sub === undefined) continue;
    const one = readValue(sub, v, `${where}.${sub.name}`);
    if (isFailure(one)) return one;
    if (one !== undefined) read[sub.name] = one;
  }
  return read;
}

/**
 * A resource's attributes from a POST or PUT body (RFC 7644 sections 3.3 and 3.5.1): names in any
 * case, the extension under its URN; `id`, `meta` and `schemas` are the server's, `password` and
 * a user's `groups` are never kept, and names no schema declares are left out.
 */
export function readResource(schema: ResourceSchema, body: unknown): Attrs | ScimFailure {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return invalid('invalidSyntax', 'the body must be a JSON object');
  const attrs: Attrs = {};
  for (const [name, value] of Object.entries(body)) {
    if (NOT_KEPT.has(name.toLowerCase())) continue;
    if (schema.extension && name.toLowerCase() === schema.extension.id.toLowerCase()) {
      const ext = readComplex(schema.extension.attributes, value, name);
      if (isFailure(ext)) return ext;
      if (Object.keys(ext).length > 0) attrs[schema.extension.id] = ext;
      continue;
    }
    const a = findAttribute(schema.attributes, name);
    if (a === undefined) continue;
    const read = readValue(a, value, a.name);
    if (isFailure(read)) return read;
    if (read !== undefined) attrs[a.name] = read;
  }
  return attrs;
}
