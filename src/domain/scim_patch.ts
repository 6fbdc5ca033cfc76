/**
 * PATCH (RFC 7644 section 3.5.2) over a resource's attributes, in memory: every operation is
 * applied to a copy, in order, and the first that fails fails the whole request, so a PATCH is
 * stored whole or not at all. The forms Okta and Microsoft Entra ID send are all taken: operation
 * names in any case ("Replace"), no path with an object of attributes (whose names may themselves
 * be paths: "name.givenName", `emails[type eq "work"].value`), `members[value eq "…"]` paths, and
 * removal of members listed in `value`.
 */
import { type Attrs, readComplex, readValue } from './scim_attributes.ts';
import { invalid, isFailure, type ScimFailure } from './scim_failure.ts';
import { type Comparison, parseFilter } from './scim_filter.ts';
import { type Attribute, findAttribute, type ResourceSchema, SCHEMA } from './scim_schema.ts';

export interface PatchOperation {
  readonly op: 'add' | 'replace' | 'remove';
  readonly path: string | undefined;
  readonly value: unknown;
}

/** The most operations one PATCH may hold. */
export const OPERATIONS_MAX = 1000;

/** The operations of a PatchOp message, or the invalidSyntax failure saying what is wrong with it. */
export function readPatch(body: unknown): PatchOperation[] | ScimFailure {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return invalid('invalidSyntax', 'the body must be a JSON object');
  const message = body as Record<string, unknown>;
  const schemas = message.schemas;
  if (schemas !== undefined && (!Array.isArray(schemas) || !schemas.includes(SCHEMA.patchOp)))
    return invalid('invalidSyntax', `schemas must hold ${SCHEMA.patchOp}`);
  const list = message.Operations ?? message.operations;
  if (!Array.isArray(list) || list.length === 0)
    return invalid('invalidSyntax', 'Operations must be a non-empty array of operations');
  if (list.length > OPERATIONS_MAX)
    return invalid('invalidSyntax', `Operations holds more than ${OPERATIONS_MAX} operations`);
  const ops: PatchOperation[] = [];
  for (const [i, item] of list.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return invalid('invalidSyntax', `Operations[${i}] must be an object`);
    const { op, path, value } = item as Record<string, unknown>;
    const name = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (name !== 'add' && name !== 'replace' && name !== 'remove')
      return invalid('invalidSyntax', `Operations[${i}].op must be add, replace or remove`);
    if (path !== undefined && typeof path !== 'string')
      return invalid('invalidPath', `Operations[${i}].path must be a string`);
    ops.push({ op: name, path: path === undefined || path.trim() === '' ? undefined : path.trim(), value });
  }
  return ops;
}

/** Where a path points: an attribute of the core schema or of the extension, maybe filtered, maybe a sub-attribute. */
interface Target {
  readonly extension: boolean;
  readonly attribute: Attribute;
  readonly filter?: readonly Comparison[];
  readonly sub?: Attribute;
}

const PATH = /^([A-Za-z$][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z$][\w$-]*))?$/;

/** A path resolved against the schema, `extension` for the extension's URN alone, or invalidPath. */
export function resolvePath(schema: ResourceSchema, path: string): Target | 'extension' | ScimFailure {
  let rest = path;
  let extension = false;
  const lower = path.toLowerCase();
  const ext = schema.extension?.id.toLowerCase();
  if (ext !== undefined && lower === ext) return 'extension';
  if (ext !== undefined && lower.startsWith(`${ext}:`)) {
    rest = path.slice(ext.length + 1);
    extension = true;
  } else if (lower.startsWith(`${schema.core.toLowerCase()}:`)) rest = path.slice(schema.core.length + 1);
  const m = PATH.exec(rest);
  if (!m?.[1]) return invalid('invalidPath', `${JSON.stringify(path)} is not an attribute path`);
  const attributes = extension ? (schema.extension?.attributes ?? []) : schema.attributes;
  const attribute = findAttribute(attributes, m[1]);
  if (attribute === undefined) return invalid('invalidPath', `${JSON.stringify(path)} names no attribute`);
  let filter: Comparison[] | undefined;
  if (m[2] !== undefined) {
    if (!attribute.multiValued || attribute.type !== 'complex')
      return invalid('invalidPath', `${attribute.name} is not a multi-valued complex attribute: it takes no filter`);
    const parsed = parseFilter(m[2]);
    if (isFailure(parsed)) return parsed;
    for (const c of parsed)
      if (findAttribute(attribute.subAttributes ?? [], c.path) === undefined)
        return invalid('invalidFilter', `${attribute.name} has no sub-attribute ${c.path}`);
    filter = parsed;
  }
  let sub: Attribute | undefined;
  if (m[3] !== undefined) {
    sub = findAttribute(attribute.subAttributes ?? [], m[3]);
    if (sub === undefined) return invalid('invalidPath', `${attribute.name} has no sub-attribute ${m[3]}`);
    if (attribute.multiValued && filter === undefined)
      return invalid('invalidPath', `${attribute.name}.${sub.name} needs a filter: ${attribute.name}[…].${sub.name}`);
  }
  return { extension, attribute, ...(filter ? { filter } : {}), ...(sub ? { sub } : {}) };
}

/**
 * The attributes after every operation, or the failure of the first that fails (nothing of the
 * others then matters: the caller keeps the attributes it had). `id` is the resource's own, which
 * Okta sends back in a group's replace.
 */
export function applyPatch(
  schema: ResourceSchema,
  attrs: Attrs,
  ops: readonly PatchOperation[],
  id: string,
): Attrs | ScimFailure {
  const copy = structuredClone(attrs);
  for (const op of ops) {
    const failure =
      op.path === undefined ? applyWithoutPath(schema, copy, op, id) : applyAt(schema, copy, op, op.path, op.value);
    if (failure) return failure;
  }
  return copy;
}

function applyWithoutPath(
  schema: ResourceSchema,
  attrs: Attrs,
  op: PatchOperation,
  id: string,
): ScimFailure | undefined {
  if (op.op === 'remove') return invalid('noTarget', 'a remove operation needs a path');
  if (typeof op.value !== 'object' || op.value === null || Array.isArray(op.value))
    return invalid('invalidSyntax', `an ${op.op} without a path needs an object of attributes as its value`);
  for (const [name, value] of Object.entries(op.value)) {
    const lower = name.toLowerCase();
    if (lower === 'schemas' || lower === 'meta') continue;
    if (lower === 'id') {
      if (value === id) continue;
      return invalid('mutability', 'id is assigned by Paddock and cannot change');
    }
    const failure = applyAt(schema, attrs, op, name, value);
    if (failure) return failure;
  }
  return undefined;
}

function applyAt(
  schema: ResourceSchema,
  attrs: Attrs,
  op: PatchOperation,
  path: string,
  value: unknown,
): ScimFailure | undefined {
  const target = resolvePath(schema, path);
  if (isFailure(target)) return target;
  if (target === 'extension') return applyToExtension(schema, attrs, op, path, value);
  const holder = target.extension ? extensionOf(schema, attrs) : attrs;
  const failure =
    target.filter !== undefined
      ? applyFiltered(holder, op, target as Target & { filter: readonly Comparison[] }, value)
      : target.sub !== undefined
        ? applySub(holder, op, target.attribute, target.sub, value)
        : applyWhole(holder, op, target.attribute, value);
  if (target.extension) tidyExtension(schema, attrs);
  return failure;
}

/** The enterprise extension's URN alone: its attributes one by one, or all of them removed. */
function applyToExtension(
  schema: ResourceSchema,
  attrs: Attrs,
  op: PatchOperation,
  path: string,
  value: unknown,
): ScimFailure | undefined {
  const id = schema.extension?.id ?? '';
  if (op.op === 'remove') {
    delete attrs[id];
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return invalid('invalidValue', `${path} must be an object of attributes`);
  for (const [name, v] of Object.entries(value)) {
    const failure = applyAt(schema, attrs, op, `${id}:${name}`, v);
    if (failure) return failure;
  }
  return undefined;
}

function extensionOf(schema: ResourceSchema, attrs: Attrs): Attrs {
  const id = schema.extension?.id ?? '';
  const ext = attrs[id];
  if (typeof ext === 'object' && ext !== null) return ext as Attrs;
  const created: Attrs = {};
  attrs[id] = created;
  return created;
}

function tidyExtension(schema: ResourceSchema, attrs: Attrs): void {
  const id = schema.extension?.id ?? '';
  if (Object.keys((attrs[id] as Attrs | undefined) ?? {}).length === 0) delete attrs[id];
}

/** `attr` as a whole: added to (a list grows, an object merges), replaced, or removed. */
function applyWhole(holder: Attrs, op: PatchOperation, a: Attribute, value: unknown): ScimFailure | undefined {
  if (op.op === 'remove') {
    // Entra ID's form of removing members: `"path": "members"` with the members to remove as value.
    if (a.multiValued && value !== undefined && value !== null) {
      const gone = readValue(a, value, a.name);
      if (isFailure(gone)) return gone;
      const keep = ((holder[a.name] as Attrs[] | undefined) ?? []).filter(
        (item) => !(gone as Attrs[]).some((g) => sameItem(a, item, g)),
      );
      setOrDelete(holder, a.name, keep);
      return undefined;
    }
    if (a.required) return invalid('mutability', `${a.name} is required: it cannot be removed`);
    delete holder[a.name];
    return undefined;
  }
  const read = readValue(a, value, a.name);
  if (isFailure(read)) return read;
  if (read === undefined) {
    if (a.required) return invalid('invalidValue', `${a.name} is required: it cannot be null`);
    delete holder[a.name];
    return undefined;
  }
  if (a.multiValued) {
    const items = read as Attrs[];
    const now = op.op === 'add' ? ((holder[a.name] as Attrs[] | undefined) ?? []) : [];
    const merged = [...now];
    for (const item of items) if (!merged.some((m) => sameItem(a, m, item))) merged.push(item);
    setOrDelete(holder, a.name, merged);
    return undefined;
  }
  // A complex value merges: sub-attributes it does not give are left as they were (section 3.5.2.3).
  holder[a.name] =
    a.type === 'complex' ? { ...((holder[a.name] as Attrs | undefined) ?? {}), ...(read as Attrs) } : read;
  return undefined;
}

/** `attr.sub` of a single complex attribute (`name.givenName`). */
function applySub(
  holder: Attrs,
  op: PatchOperation,
  a: Attribute,
  sub: Attribute,
  value: unknown,
): ScimFailure | undefined {
  const complex = { ...((holder[a.name] as Attrs | undefined) ?? {}) };
  if (op.op === 'remove') delete complex[sub.name];
  else {
    const read = readValue(sub, value, `${a.name}.${sub.name}`);
    if (isFailure(read)) return read;
    if (read === undefined) delete complex[sub.name];
    else complex[sub.name] = read;
  }
  setOrDelete(holder, a.name, complex);
  return undefined;
}

/** `attr[filter]` or `attr[filter].sub` of a multi-valued complex attribute (`members[value eq "…"]`). */
function applyFiltered(
  holder: Attrs,
  op: PatchOperation,
  t: Target & { filter: readonly Comparison[] },
  value: unknown,
): ScimFailure | undefined {
  const subs = t.attribute.subAttributes ?? [];
  const items = ((holder[t.attribute.name] as Attrs[] | undefined) ?? []).map((item) => ({ ...item }));
  const matches = (item: Attrs) => t.filter.every((c) => matchesComparison(subs, item, c));
  const where = `${t.attribute.name}[…]`;
  if (op.op === 'remove') {
    // Removing what is not there leaves it not there: Entra ID removes members it believes present.
    const kept = t.sub === undefined ? items.filter((item) => !matches(item)) : items;
    if (t.sub !== undefined) for (const item of items) if (matches(item)) delete item[t.sub.name];
    setOrDelete(holder, t.attribute.name, kept);
    return undefined;
  }
  if (t.sub === undefined) {
    const read = readComplex(subs, value, where);
    if (isFailure(read)) return read;
    if (!items.some(matches)) return invalid('noTarget', `no value of ${t.attribute.name} matches the filter`);
    setOrDelete(
      holder,
      t.attribute.name,
      items.map((item) => (matches(item) ? (op.op === 'add' ? { ...item, ...read } : read) : item)),
    );
    return undefined;
  }
  const read = readValue(t.sub, value, `${where}.${t.sub.name}`);
  if (isFailure(read)) return read;
  const sub = t.sub.name;
  if (items.some(matches)) {
    for (const item of items) {
      if (!matches(item)) continue;
      if (read === undefined) delete item[sub];
      else item[sub] = read;
    }
  } else if (read !== undefined) {
    // Entra ID replaces `emails[type eq "work"].value` on a user that has no work address yet: the
    // value the filter describes is made, as most SCIM servers do, rather than answered noTarget.
    const made: Attrs = {};
    for (const c of t.filter) made[findAttribute(subs, c.path)?.name ?? c.path] = c.value;
    made[sub] = read;
    items.push(made);
  }
  setOrDelete(holder, t.attribute.name, items);
  return undefined;
}

/** Whether a value of a multi-valued attribute satisfies one comparison of a path's filter. */
function matchesComparison(subs: readonly Attribute[], item: Attrs, c: Comparison): boolean {
  const sub = findAttribute(subs, c.path);
  const have = sub === undefined ? undefined : item[sub.name];
  if (c.value === null) return have === undefined || have === null;
  if (typeof have === 'string' && typeof c.value === 'string')
    return sub?.caseExact ? have === c.value : have.toLowerCase() === c.value.toLowerCase();
  return have === c.value;
}

/** Two values of a multi-valued attribute are one when their `value` is (a member, an address). */
function sameItem(a: Attribute, x: Attrs, y: Attrs): boolean {
  if (x.value !== undefined || y.value !== undefined) {
    const caseExact = findAttribute(a.subAttributes ?? [], 'value')?.caseExact ?? false;
    return typeof x.value === 'string' && typeof y.value === 'string' && !caseExact
      ? x.value.toLowerCase() === y.value.toLowerCase() && x.type === y.type
      : x.value === y.value && (caseExact || x.type === y.type);
  }
  return JSON.stringify(x) === JSON.stringify(y);
}

function setOrDelete(holder: Attrs, name: string, value: Attrs | Attrs[]): void {
  if (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0) delete holder[name];
  else holder[name] = value;
}
