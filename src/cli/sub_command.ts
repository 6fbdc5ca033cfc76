/**
 * What a sub-command of the admin CLI is (its arguments, options, API call and output), and the
 * `list` sub-command every list derives from its declaration (lists/): its flags, the query it
 * sends and its usage line. The sub-commands are in cli/admin_commands.ts and
 * cli/collections_commands.ts; cli/admin.ts runs them.
 */
import type { ListDeclaration, Parameters } from '../lists/parameters.ts';
import type { ApiClient, Query } from './api_client.ts';

export type Values = Record<string, string | boolean | string[] | undefined>;
export type Item = Record<string, unknown>;
export type Page = { items: Item[]; next?: string };

export interface SubCommand {
  /** After `paddock <verb> <name>`: positional arguments and options. */
  usage: string;
  /** What the help says under the usage, when the usage alone would not do. */
  note?: string;
  /** How many positional arguments; with `more`, at least that many. */
  positionals: number;
  more?: true;
  options: Record<string, { type: 'string' | 'boolean'; multiple?: true }>;
  run(api: ApiClient, args: string[], values: Values): Promise<Output>;
}

/**
 * What a sub-command prints: a list with its columns, one record, one record then a list (as
 * `json` with --json), or a confirmation. `exit` is its exit code when it is not 0.
 */
export type Output = (
  | { kind: 'list'; page: Page; columns: Columns }
  | { kind: 'one'; item: Item }
  | { kind: 'one-and-list'; item: Item; page: Page; columns: Columns; json: unknown }
  | { kind: 'done'; message: string; json?: unknown }
) & { exit?: number };

export type Columns = ReadonlyArray<readonly [header: string, field: (i: Item) => unknown]>;

export const path = (...segments: string[]) => segments.map(encodeURIComponent).join('/');
export const text = (v: Values, name: string) => (typeof v[name] === 'string' ? (v[name] as string) : undefined);
/** A repeatable option's values, in the order given. */
export const texts = (v: Values, name: string): string[] => {
  const given = v[name];
  return Array.isArray(given) ? given : typeof given === 'string' ? [given] : [];
};

/** A parameter's flag: its name, `_` written `-`. */
export const flag = (name: string) => name.replaceAll('_', '-');

/**
 * A list's flags, one per parameter of its declaration (lists/): a yes filter is a bare flag,
 * the cursor is `--before`; `--all` follows `next` to the end.
 */
export function listFlags(declared: { parameters: Parameters }): SubCommand['options'] {
  const options: SubCommand['options'] = {};
  for (const [name, p] of Object.entries(declared.parameters))
    options[flag(name)] =
      p.repeat === undefined
        ? { type: p.kind.kind === 'yes' ? 'boolean' : 'string' }
        : { type: 'string', multiple: true };
  return { ...options, all: { type: 'boolean' } };
}

/** `[--q TEXT] [--status active|stale|pending|revoked] …` after `start`, the cursor left to the help's note, in lines of 70. */
export function flagsUsage(start: string, declared: { parameters: Parameters }): string {
  let usage = start;
  let line = usage.length;
  for (const [name, p] of Object.entries(declared.parameters)) {
    if (p.kind.kind === 'cursor') continue;
    const item =
      p.kind.kind === 'yes'
        ? `[--${flag(name)}]`
        : `[--${flag(name)} ${p.kind.meta}]${p.repeat === undefined ? '' : '…'}`;
    const wrap = line + 1 + item.length > 70;
    usage += (wrap ? '\n' : ' ') + item;
    line = wrap ? item.length : line + 1 + item.length;
  }
  return usage;
}

/** The API query of the filters given as flags (the cursor is added by `list`). */
export function listQuery(declared: { parameters: Parameters }, v: Values): Query {
  const query: Query = {};
  for (const [name, p] of Object.entries(declared.parameters)) {
    if (p.kind.kind === 'cursor') continue;
    if (p.repeat !== undefined) {
      const given = texts(v, flag(name));
      query[name] = given.length === 0 ? undefined : given;
    } else query[name] = p.kind.kind === 'yes' ? (v[flag(name)] ? 'yes' : undefined) : text(v, flag(name));
  }
  return query;
}

/** `paddock <verb> list`: the flags, the query and the usage all from the list's declaration. */
export function listCommand<P extends Parameters>(
  declared: ListDeclaration<P>,
  at: string,
  columns: Columns,
): SubCommand {
  return {
    usage: flagsUsage('list', declared),
    positionals: 0,
    options: listFlags(declared),
    run: async (api, _, v) => ({ kind: 'list', page: await list(api, at, listQuery(declared, v), v), columns }),
  };
}

/** The first page (from `--before`), or with `--all` every page's items. */
export async function list(api: ApiClient, at: string, query: Query, v: Values): Promise<Page> {
  const first = (await api.get(at, { ...query, before: text(v, 'before') })) as Page;
  if (!v.all) return first;
  const items = [...first.items];
  for (let next = first.next; next !== undefined;) {
    const page = (await api.get(at, { ...query, before: next })) as Page;
    items.push(...page.items);
    next = page.next;
  }
  return { items };
}
