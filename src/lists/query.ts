/**
 * The query parameters of the filtered lists (CONTRACT section 9), parsed strictly: each bad value
 * is a named plain-text 400, a repeated parameter too, and an empty one means "no filter" so that
 * a GET form submitted with blank fields lists everything. Unknown parameters are ignored.
 */
import type { Context } from 'hono';
import { DEVICE_ID, SUBJECT } from '../domain/ids.ts';
import { VISIBLE_CHAR } from '../domain/names.ts';
import { isPrivacyLevel, type PrivacyLevel } from '../domain/privacy.ts';
import type { FailureName } from '../http/failures.ts';
import { DEVICE_SORTS, DEVICE_STATUSES, type DeviceSort, type DeviceStatus } from '../domain/devices.ts';
import type { RunFilter } from '../domain/runs.ts';

/**
 * A search needs three characters: both indexes are of trigrams, and a shorter pattern would
 * read every device.
 */
const SEARCH = new RegExp(`^${VISIBLE_CHAR}{3,128}$`, 'u');
const DAY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const CURSOR = /^[1-9][0-9]{0,14}$/;
const DAY_MS = 86_400_000;

type Parsed<T> = { ok: true; value: T } | { ok: false; failure: FailureName };

export interface DeviceQuery {
  q?: string;
  owner?: string;
  status?: DeviceStatus;
  sort?: DeviceSort;
  before?: string;
}

interface RunParams {
  device?: string;
  privacy?: PrivacyLevel;
  /** YYYY-MM-DD as written. */
  since?: string;
  until?: string;
  /** `yes`: only runs the level check flagged (CONTRACT section 10). */
  flagged?: 'yes';
  before?: string;
}

export interface RunQuery extends RunParams {
  /** The instants the days stand for: since from the start of its day, until to the end of its. */
  sinceMs?: number;
  untilMs?: number;
}

/** One value of a parameter, or undefined when absent or empty; `false` when repeated. */
function single(c: Context, name: string): string | undefined | false {
  const values = c.req.queries(name);
  if (values === undefined) return undefined;
  if (values.length !== 1) return false;
  return values[0] === '' ? undefined : values[0];
}

/** Reads each parameter with its check; the first that fails names the failure. */
function read<T extends object>(
  c: Context,
  checks: { [K in keyof T]-?: [FailureName, (value: string) => boolean] },
): Parsed<T> {
  const out: Record<string, string> = {};
  for (const [name, [failure, ok]] of Object.entries(checks) as Array<
    [string, [FailureName, (v: string) => boolean]]
  >) {
    const value = single(c, name);
    if (value === false) return { ok: false, failure: 'repeatedParameter' };
    if (value === undefined) continue;
    if (!ok(value)) return { ok: false, failure };
    out[name] = value;
  }
  return { ok: true, value: out as T };
}

export function deviceQuery(c: Context): Parsed<DeviceQuery> {
  return read<DeviceQuery>(c, {
    q: ['badSearch', (v) => SEARCH.test(v)],
    owner: ['badOwner', (v) => SUBJECT.test(v)],
    status: ['badStatus', (v) => (DEVICE_STATUSES as readonly string[]).includes(v)],
    sort: ['badSort', (v) => (DEVICE_SORTS as readonly string[]).includes(v)],
    before: ['badCursor', (v) => CURSOR.test(v)],
  });
}

export function runQuery(c: Context): Parsed<RunQuery> {
  const parsed = read<RunParams>(c, {
    device: ['badDeviceFilter', (v) => DEVICE_ID.test(v)],
    privacy: ['badPrivacyFilter', isPrivacyLevel],
    since: ['badDate', (v) => dayStart(v) !== undefined],
    until: ['badDate', (v) => dayStart(v) !== undefined],
    flagged: ['badFlaggedFilter', (v) => v === 'yes'],
    before: ['badCursor', (v) => CURSOR.test(v)],
  });
  if (!parsed.ok) return parsed;
  const q: RunQuery = parsed.value;
  if (q.since !== undefined) q.sinceMs = dayStart(q.since);
  // `until` names the last day shown, so the range ends where the next day begins.
  if (q.until !== undefined) q.untilMs = (dayStart(q.until) ?? 0) + DAY_MS;
  if (q.sinceMs !== undefined && q.untilMs !== undefined && q.sinceMs >= q.untilMs)
    return { ok: false, failure: 'badDateRange' };
  return { ok: true, value: q };
}

/** The store's run filter for a parsed query: the console's list and the API's read the same. */
export function runFilter(q: RunQuery): RunFilter {
  return {
    device: q.device,
    privacy: q.privacy,
    since: q.sinceMs,
    until: q.untilMs,
    flagged: q.flagged === 'yes' ? true : undefined,
  };
}

/** The first millisecond (UTC) of a real calendar day written YYYY-MM-DD, or undefined. */
export function dayStart(text: string): number | undefined {
  const m = DAY.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  // Date.UTC rolls 2026-02-30 over to March: a day that does not exist is refused.
  if (year < 1970 || back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day)
    return undefined;
  return ms;
}

/** `?a=1&b=2` of the parameters that are set, so paging links keep the filters (URL-encoded). */
export function queryString(params: Record<string, string | undefined>): string {
  const set = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '');
  return set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`;
}
