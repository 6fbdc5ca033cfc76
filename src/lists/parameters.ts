/**
 * A list's query parameters, declared once (docs/contract.md sections 9 and 11): each parameter's name,
 * kind (text, enumeration, subject, device id, day, yes, cursor), the failure a bad value is, and
 * how people see it (the form's label, the sentence that says which filters apply). From one
 * declaration come the console's parser and the API's (here), the API's OpenAPI parameters
 * (api/openapi.ts), the filter form and the paging links (views/list_parts.ts) and the admin CLI's
 * flags (cli/admin_commands.ts). No HTTP here: the parsers read URLSearchParams and answer values
 * or a fault the doors turn into their answers.
 */
import { DEVICE_ID, SUBJECT } from '../domain/ids.ts';
import { isOwner, parseOwner } from '../domain/owners.ts';
import { parseLabelSelector } from '../domain/labels.ts';
import { FACT_VALUE_MAX, parseFactSelector } from '../domain/facts.ts';
import { MAX_QUERY, parseTextQuery } from '../domain/words.ts';

/**
 * The failures a list parameter can be, by the name http/failures.ts gives its status and
 * message (it checks that each of these is one of its own).
 */
export type ListFailure =
  | 'repeatedParameter'
  | 'badCursor'
  | 'badSearch'
  | 'badOwner'
  | 'badStatus'
  | 'badSort'
  | 'badSeenFilter'
  | 'badDeviceFilter'
  | 'badPrivacyFilter'
  | 'badDate'
  | 'badDateRange'
  | 'badFlaggedFilter'
  | 'badOwnerDisabledFilter'
  | 'badAuditActor'
  | 'badAuditEvent'
  | 'badLabelFilter'
  | 'tooManyLabelFilters'
  | 'badFactFilter'
  | 'tooManyFactFilters'
  | 'badCollectionState'
  | 'badTargetState'
  | 'badTextSearch';

/** What a parameter's value is: how it is checked, described (JSON Schema) and shown. */
export interface Kind<V extends string = string> {
  readonly kind: 'text' | 'enum' | 'subject' | 'owner' | 'device' | 'day' | 'yes' | 'cursor' | 'label' | 'fact';
  test(value: string): value is V;
  /** Why a value is refused, when the kind can say more than its failure (the label at fault). */
  explain?(value: string): string | undefined;
  /** The value's JSON Schema, for the OpenAPI document. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** The CLI's placeholder (`--owner SUBJECT`); the yes kind is a flag without one. */
  readonly meta: string;
  /** An enumeration's values, in the order the form offers them. */
  readonly values?: readonly V[];
  readonly minLength?: number;
  readonly maxLength?: number;
}

export interface Parameter<V extends string = string> {
  readonly kind: Kind<V>;
  /** The failure a bad value is. */
  readonly failure: ListFailure;
  /** What it is, for the OpenAPI document. */
  readonly about: string;
  /** The filter form's label; absent for a parameter the form does not ask for (the cursor). */
  readonly label?: string;
  /** How the page names the filter when it applies ("owned by"); absent when it is not named. */
  readonly shown?: string;
  readonly placeholder?: string;
  /** A sentence under the form's field on what it takes, when the label alone would not say. */
  readonly hint?: string;
  /** An enumeration's words in the form, per value; absent shows the values. */
  readonly words?: Readonly<Record<V, string>>;
  /** An enumeration's value when none is given (the form selects it); absent offers "any". */
  readonly default?: V;
  /** Only administrators are offered the field in the form. */
  readonly adminOnly?: boolean;
  /**
   * A parameter that may be given more than once (each value must hold): at most `max` times,
   * more is `failure`. Its value is then the list of values given, in order.
   */
  readonly repeat?: { readonly max: number; readonly failure: ListFailure };
}

export type Parameters = Readonly<Record<string, Parameter>>;

/** A parsed query: each parameter's value when given and not blank. */
export type Values<P extends Parameters> = {
  -readonly [K in keyof P]?: P[K] extends { kind: Kind<infer V> }
    ? P[K] extends { repeat: object }
      ? readonly V[]
      : V
    : never;
};

/** Any list's values, as the shared parts (forms, links) read them. */
type AnyValues = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A parameter's values as a list: none, the one given, or each of a repeated one's. */
export function valuesOf(values: object, name: string): readonly string[] {
  const value = (values as AnyValues)[name];
  return value === undefined ? [] : typeof value === 'string' ? [value] : value;
}

export interface ListDeclaration<P extends Parameters = Parameters> {
  readonly parameters: P;
  /**
   * A blank value: no filter on lists with a filter form (a GET form sends its empty fields), a
   * bad value on lists that take only a cursor.
   */
  readonly blank: 'absent' | 'refused';
  /** What a repeated parameter is, and whether the console's answer names it after a colon. */
  readonly repeated: { failure: ListFailure; named: boolean };
  /** Whether values are read without their surrounding white space. */
  readonly trim: boolean;
  /** A rule across parameters, once each is valid (a day range): the fault, or undefined. */
  readonly across?: (values: Values<P>) => { failure: ListFailure; parameter: string } | undefined;
}

export function declareList<const P extends Parameters>(list: ListDeclaration<P>): ListDeclaration<P> {
  return list;
}

/** A list that takes only a cursor, `before`: a blank or repeated one is a bad cursor. */
export function cursorList<V extends string>(kind: Kind<V>) {
  return declareList({
    parameters: { before: cursorParameter(kind) },
    blank: 'refused',
    repeated: { failure: 'badCursor', named: false },
    trim: false,
  });
}

export function cursorParameter<V extends string>(kind: Kind<V>): Parameter<V> {
  return { kind, failure: 'badCursor', about: 'cursor: `next` of the previous page' };
}

// The kinds.

function kind<V extends string>(k: Omit<Kind<V>, 'test'>, test: (value: string) => boolean): Kind<V> {
  return { ...k, test: test as (value: string) => value is V };
}

export const text = (pattern: RegExp, length: { min: number; max: number }): Kind =>
  kind(
    {
      kind: 'text',
      schema: { type: 'string', minLength: length.min, maxLength: length.max },
      meta: 'TEXT',
      minLength: length.min,
      maxLength: length.max,
    },
    (v) => pattern.test(v),
  );

export const oneOf = <V extends string>(values: readonly V[], meta = values.join('|')): Kind<V> =>
  kind<V>({ kind: 'enum', schema: { enum: values }, meta, values }, (v) => (values as readonly string[]).includes(v));

/**
 * An account subject, or with `system` also the word `system` (the sweepers' actions) and with
 * `device` also `device:<id>` (what a device did, docs/contract.md section 22).
 */
export const subject = (opts: { system?: boolean; device?: boolean } = {}): Kind =>
  kind(
    {
      kind: 'subject',
      schema: { type: 'string' },
      meta: `SUBJECT${opts.system ? '|system' : ''}${opts.device ? '|device:ID' : ''}`,
      maxLength: 262,
    },
    (v) =>
      SUBJECT.test(v) ||
      (opts.system === true && v === 'system') ||
      (opts.device === true && v.startsWith('device:') && DEVICE_ID.test(v.slice('device:'.length))),
  );

/** An owner (docs/contract.md section 19): an account subject or `group:<name>`; a bad one says why. */
export const owner = (): Kind => ({
  ...kind({ kind: 'owner', schema: { type: 'string' }, meta: 'OWNER', maxLength: 262 }, isOwner),
  explain: (v) => {
    const parsed = parseOwner(v);
    return parsed.ok ? undefined : parsed.message;
  },
});

export const deviceId = (): Kind =>
  kind({ kind: 'device', schema: { type: 'string' }, meta: 'ID', maxLength: 64 }, (v) => DEVICE_ID.test(v));

/** A UTC day written YYYY-MM-DD that exists. */
export const day = (): Kind =>
  kind(
    { kind: 'day', schema: { type: 'string', format: 'date' }, meta: 'DAY', maxLength: 10 },
    (v) => dayStart(v) !== undefined,
  );

/** `yes`, or absent: a check box in the form, a flag in the CLI. */
export const yes = (): Kind<'yes'> =>
  kind<'yes'>({ kind: 'yes', schema: { const: 'yes' }, meta: '' }, (v) => v === 'yes');

/** A label filter (docs/contract.md section 12): `key=value`, or `key` for any value. */
export const labelSelector = (): Kind => ({
  ...kind(
    { kind: 'label', schema: { type: 'string', minLength: 1, maxLength: 127 }, meta: 'KEY[=VALUE]', maxLength: 127 },
    (v) => parseLabelSelector(v).ok,
  ),
  explain: (v) => {
    const read = parseLabelSelector(v);
    return read.ok ? undefined : read.error;
  },
});

/** A fact filter (docs/contract.md section 16): `key=value`, exact. */
export const factSelector = (): Kind => ({
  ...kind(
    {
      kind: 'fact',
      schema: { type: 'string', minLength: 2, maxLength: 64 + FACT_VALUE_MAX },
      meta: 'KEY=VALUE',
      maxLength: 64 + FACT_VALUE_MAX,
    },
    (v) => parseFactSelector(v).ok,
  ),
  explain: (v) => {
    const read = parseFactSelector(v);
    return read.ok ? undefined : read.error;
  },
});

/**
 * A search's words and "quoted phrases" (docs/contract.md section 21): 1 to MAX_QUERY characters
 * holding a word, quotes in pairs; a bad one says why (domain/words.ts).
 */
export const searchText = (): Kind => ({
  ...kind(
    {
      kind: 'text',
      schema: { type: 'string', minLength: 1, maxLength: MAX_QUERY },
      meta: 'WORDS',
      minLength: 1,
      maxLength: MAX_QUERY,
    },
    (v) => parseTextQuery(v).ok,
  ),
  explain: (v) => {
    const read = parseTextQuery(v);
    return read.ok ? undefined : read.message;
  },
});

export const cursor = (pattern: RegExp): Kind =>
  kind({ kind: 'cursor', schema: { type: 'string', pattern: pattern.source }, meta: 'CURSOR' }, (v) => pattern.test(v));

// Parsing.

/** Why a query was refused: the parameter at fault and, for a bad value, its failure. */
export type Fault =
  | { problem: 'unknown'; parameter: string }
  | { problem: 'repeated'; parameter: string; failure: ListFailure }
  | { problem: 'bad'; parameter: string; failure: ListFailure; detail?: string };

/** The console's faults: it ignores parameters a list does not declare. */
export type ValueFault = Exclude<Fault, { problem: 'unknown' }>;

export type Parsed<P extends Parameters, F extends Fault = Fault> =
  { ok: true; values: Values<P> } | { ok: false; fault: F };

export function parameterNames(list: { parameters: Parameters }): string[] {
  return Object.keys(list.parameters);
}

/**
 * The first parameter not among `known`, or given more than once (unless `repeatable`, which the
 * list's parser counts): the API refuses both.
 */
export function strictFault(
  known: readonly string[],
  params: URLSearchParams,
  repeatable: readonly string[] = [],
): Fault | undefined {
  for (const name of params.keys()) {
    if (!known.includes(name)) return { problem: 'unknown', parameter: name };
    if (params.getAll(name).length > 1 && !repeatable.includes(name))
      return { problem: 'repeated', parameter: name, failure: 'repeatedParameter' };
  }
  return undefined;
}

/** The parameters a list lets a query give more than once. */
export function repeatableNames(list: { parameters: Parameters }): string[] {
  return Object.entries(list.parameters)
    .filter(([, p]) => p.repeat !== undefined)
    .map(([name]) => name);
}

/**
 * The console's parser: parameters the list does not declare are ignored; a repeated one, then
 * the first bad value in the declaration's order, then a rule across them, is the fault.
 */
export function parseConsole<P extends Parameters>(
  list: ListDeclaration<P>,
  params: URLSearchParams,
): Parsed<P, ValueFault> {
  for (const [name, p] of Object.entries(list.parameters)) {
    const given = params.getAll(name).length;
    if (p.repeat === undefined ? given > 1 : given > p.repeat.max)
      return {
        ok: false,
        fault: { problem: 'repeated', parameter: name, failure: p.repeat?.failure ?? list.repeated.failure },
      };
  }
  return values(list, params);
}

/** The API's parser: as the console's, and a parameter the list does not declare is refused too. */
export function parseApi<P extends Parameters>(list: ListDeclaration<P>, params: URLSearchParams): Parsed<P> {
  const strict = strictFault(parameterNames(list), params, repeatableNames(list));
  if (strict) return { ok: false, fault: strict };
  return parseConsole(list, params);
}

function values<P extends Parameters>(list: ListDeclaration<P>, params: URLSearchParams): Parsed<P, ValueFault> {
  const out: Record<string, string | string[]> = {};
  for (const [name, p] of Object.entries(list.parameters)) {
    const read: string[] = [];
    for (const given of params.getAll(name)) {
      const value = list.trim ? given.trim() : given;
      if (value === '' && list.blank === 'absent') continue;
      if (!p.kind.test(value)) {
        const detail = p.kind.explain?.(value);
        return {
          ok: false,
          fault: { problem: 'bad', parameter: name, failure: p.failure, ...(detail === undefined ? {} : { detail }) },
        };
      }
      read.push(value);
    }
    if (read.length > 0) out[name] = p.repeat === undefined ? (read[0] as string) : read;
  }
  const parsed = out as Values<P>;
  const across = list.across?.(parsed);
  if (across) return { ok: false, fault: { problem: 'bad', ...across } };
  return { ok: true, values: parsed };
}

/**
 * The values of the list's parameters as the query sent them, valid or not, for a form filled in
 * as it was sent (docs/contract.md section 22): each one's first value, a repeatable one's all.
 */
export function sentValues<P extends Parameters>(list: ListDeclaration<P>, params: URLSearchParams): Values<P> {
  const out: Record<string, string | string[]> = {};
  for (const [name, p] of Object.entries(list.parameters)) {
    const given = params.getAll(name);
    if (given.length > 0) out[name] = p.repeat === undefined ? (given[0] as string) : given;
  }
  return out as Values<P>;
}

/** The console's plain-text failure for a fault: its name, and the parameter when the list names it. */
export function consoleFailure(
  list: Pick<ListDeclaration, 'repeated'>,
  fault: ValueFault,
): { failure: ListFailure; detail?: string } {
  if (fault.problem === 'repeated' && list.repeated.named) return { failure: fault.failure, detail: fault.parameter };
  if (fault.problem === 'bad' && fault.detail !== undefined) return { failure: fault.failure, detail: fault.detail };
  return { failure: fault.failure };
}

/**
 * `?a=1&b=2` of the list's parameters that are set, in the declaration's order, with `before`
 * when given: paging links keep the filters (URL-encoded); empty when none is set.
 */
export function listQueryString<P extends Parameters>(
  list: ListDeclaration<P>,
  values: Values<P>,
  before?: string,
): string {
  const set: Array<[string, string]> = [];
  for (const [name, p] of Object.entries(list.parameters))
    if (p.kind.kind !== 'cursor') for (const value of valuesOf(values, name)) if (value !== '') set.push([name, value]);
  if (before !== undefined) set.push(['before', before]);
  return set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`;
}

// Days.

const DAY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
export const DAY_MS = 86_400_000;

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

/** The instants a day range stands for: `since` from the start of its day, `until` to the end of its. */
export function dayRange(v: { since?: string; until?: string }): { since?: number; until?: number } {
  const since = v.since === undefined ? undefined : dayStart(v.since);
  // `until` names the last day shown, so the range ends where the next day begins.
  const until = v.until === undefined ? undefined : (dayStart(v.until) ?? 0) + DAY_MS;
  return { since, until };
}

/** The rule of lists filtered by days: `since` is a day before or equal to `until`. */
export function sinceNotAfterUntil(v: { since?: string; until?: string }) {
  const r = dayRange(v);
  return r.since !== undefined && r.until !== undefined && r.since >= r.until
    ? { failure: 'badDateRange' as const, parameter: 'until' }
    : undefined;
}
