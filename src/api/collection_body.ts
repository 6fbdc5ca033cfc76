/**
 * The body of POST /api/v1/collections (docs/contract.md section 15), read strictly: `privacy`,
 * `reason`, `expires_in`, and either `devices` (device ids) or `filter` (the device list's filters
 * `q`, `owner`, `status`, `label` and `fact`, checked by that list's own declaration, lists/devices.ts).
 * Every refusal is a problem naming the field at fault, a filter's as `filter.<name>`.
 */
import type { Context } from 'hono';
import type { NewCollectionInput } from '../actions/collections.ts';
import { FAILURES } from '../http/failures.ts';
import { FORM_LIMIT } from '../http/form.ts';
import { DEVICES, deviceFilter } from '../lists/devices.ts';
import { declareList, type Fault, type Parameters, parseApi } from '../lists/parameters.ts';
import { type FieldType, jsonFields } from './json_body.ts';
import { problem } from './problem.ts';

export const COLLECTION_FIELDS: Record<string, FieldType> = {
  devices: 'json',
  filter: 'json',
  privacy: 'string',
  reason: 'string',
  expires_in: 'integer',
};

/**
 * Up to 1000 device ids of up to 64 characters do not fit the API's usual 8 KiB: the body may be as
 * large as the console's form that asks the same.
 */
export const COLLECTION_BODY_LIMIT = FORM_LIMIT;

/**
 * The device list's filters a collection is made from. A blank value is refused, not read as no
 * filter: a script's unset variable must not widen an ask to every device.
 */
export const COLLECTION_FILTER = declareList({
  parameters: {
    q: DEVICES.parameters.q,
    owner: DEVICES.parameters.owner,
    status: DEVICES.parameters.status,
    label: DEVICES.parameters.label,
    fact: DEVICES.parameters.fact,
  },
  blank: 'refused',
  repeated: { failure: 'repeatedParameter', named: false },
  trim: false,
});

export type CollectionBody = { ok: true; input: NewCollectionInput } | { ok: false; response: Response };

/** The new collection the body asks for (devices not yet checked: the action does), or the problem. */
export async function collectionBody(c: Context, staleBefore: number): Promise<CollectionBody> {
  const body = await jsonFields(c, COLLECTION_FIELDS, ['privacy', 'reason'], COLLECTION_BODY_LIMIT);
  if (!body.ok) return body;
  const refuse = (title: string, detail: string, field: string) => ({
    ok: false as const,
    response: problem(c, 400, title, detail, { field }),
  });
  const devices = body.values.get('devices');
  const filter = body.values.get('filter');
  if (devices !== undefined && filter !== undefined)
    return refuse('bad field', 'give either devices or filter, not both', 'filter');
  if (devices === undefined && filter === undefined)
    return refuse('missing field', 'devices or filter is required', 'devices');
  const expiresIn = body.fields.get('expires_in');
  const input = {
    privacy: body.fields.get('privacy') ?? '',
    reason: body.fields.get('reason') ?? '',
    expiresIn: expiresIn === undefined ? undefined : Number(expiresIn),
  };
  if (devices !== undefined) {
    if (!Array.isArray(devices) || !devices.every((d) => typeof d === 'string'))
      return refuse('bad field', 'devices must be an array of device ids', 'devices');
    return { ok: true, input: { ...input, scope: { devices } } };
  }
  const read = filterParameters(filter);
  if (!read.ok) return refuse(read.title, read.detail, read.field);
  const parsed = parseApi(COLLECTION_FILTER, read.params);
  if (!parsed.ok) return refuse('bad field', faultText(parsed.fault), `filter.${parsed.fault.parameter}`);
  return { ok: true, input: { ...input, scope: { filter: deviceFilter(parsed.values, staleBefore) } } };
}

/** What is wrong with a filter's value, in the device list's words. */
function faultText(fault: Fault): string {
  if (fault.problem === 'unknown') return `${fault.parameter} is not a filter of collections`;
  const detail = fault.problem === 'bad' && fault.detail !== undefined ? `: ${fault.detail}` : '';
  return `${FAILURES[fault.failure].message}${detail}`;
}

type FilterRead = { ok: true; params: URLSearchParams } | { ok: false; title: string; detail: string; field: string };

/** The filter object as the device list's query: each name known, a string, or `label` an array of them. */
function filterParameters(filter: unknown): FilterRead {
  const names = Object.keys(COLLECTION_FILTER.parameters);
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    return {
      ok: false,
      title: 'bad field',
      detail: `filter must be an object of ${names.join(', ')}`,
      field: 'filter',
    };
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) {
    const field = `filter.${name}`;
    if (!names.includes(name))
      return { ok: false, title: 'unknown field', detail: `${field} is not a filter of collections`, field };
    const repeat = (COLLECTION_FILTER.parameters as Parameters)[name]?.repeat;
    const given: unknown[] = repeat === undefined ? [value] : Array.isArray(value) ? value : [undefined];
    if (!given.every((v) => typeof v === 'string'))
      return {
        ok: false,
        title: 'bad field',
        detail: repeat === undefined ? `${field} must be a string` : `${field} must be an array of strings`,
        field,
      };
    for (const v of given as string[]) params.append(name, v);
  }
  return { ok: true, params };
}
