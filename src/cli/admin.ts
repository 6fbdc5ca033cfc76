/**
 * `paddock devices|enroll-tokens|runs|audit …`: the admin CLI over the JSON API (CONTRACT section
 * 11). Each sub-command is one row of a table: its arguments, its options (each option is the API
 * parameter or body field of the same name) and what it prints. A table for people, or with
 * `--json` the API's JSON as it came (with `--all`, every page's items in one `{"items": […]}`).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { link, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { type ApiClient, apiClient, CliFailure, EXIT } from './api_client.ts';
import { printable, record, table } from './table.ts';

type Values = Record<string, string | boolean | undefined>;
type Item = Record<string, unknown>;
type Page = { items: Item[]; next?: string };

interface SubCommand {
  /** After `paddock <verb> <name>`: positional arguments and options. */
  usage: string;
  positionals: number;
  options: Record<string, { type: 'string' | 'boolean' }>;
  run(api: ApiClient, args: string[], values: Values): Promise<Output>;
}

type Output =
  | { kind: 'list'; page: Page; columns: Columns }
  | { kind: 'one'; item: Item }
  | { kind: 'done'; message: string; json?: unknown };

type Columns = ReadonlyArray<readonly [header: string, field: (i: Item) => unknown]>;

const path = (...segments: string[]) => segments.map(encodeURIComponent).join('/');
const text = (v: Values, name: string) => (typeof v[name] === 'string' ? (v[name] as string) : undefined);

/** `--before` starts at a cursor; `--all` follows `next` to the end. */
const paging = { before: { type: 'string' }, all: { type: 'boolean' } } as const;

async function list(api: ApiClient, at: string, query: Record<string, string | undefined>, v: Values): Promise<Page> {
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

const DEVICE_COLUMNS: Columns = [
  ['ID', (d) => d.id],
  ['NAME', (d) => d.name],
  ['OWNER', (d) => d.owner],
  ['STATUS', (d) => d.status],
  ['LAST SEEN', (d) => d.last_seen_at],
];
const RUN_COLUMNS: Columns = [
  ['DEVICE', (r) => r.device],
  ['ID', (r) => r.id],
  ['PRIVACY', (r) => r.privacy],
  ['SIZE', (r) => r.size],
  ['UPLOADED', (r) => r.uploaded_at],
  ['FLAGGED', (r) => (r.flagged ? 'yes' : '')],
];
const TOKEN_COLUMNS: Columns = [
  ['ID', (t) => t.id],
  ['OWNER', (t) => t.owner],
  ['USES LEFT', (t) => `${String(t.uses_left)}/${String(t.uses)}`],
  ['EXPIRES', (t) => t.expires_at],
  ['MAX PRIVACY', (t) => t.max_privacy],
  ['NAME', (t) => t.name || '-'],
  ['NOTE', (t) => t.note || '-'],
];
const AUDIT_COLUMNS: Columns = [
  ['TIME', (r) => r.time],
  ['EVENT', (r) => r.event],
  ['ACCOUNT', (r) => r.account],
  ['DEVICE', (r) => r.device],
  ['RUN', (r) => r.run],
  ['DETAIL', (r) => r.detail || '-'],
];

const wholeNumber = (v: Values, name: string): number | undefined => {
  const given = text(v, name);
  if (given === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(given)) throw new CliFailure(`--${name} must be a whole number`, EXIT.usage);
  return Number(given);
};

const VERBS: Record<string, Record<string, SubCommand>> = {
  devices: {
    list: {
      usage: 'list [--q TEXT] [--owner SUBJECT] [--status active|stale|revoked]\n' + '[--sort newest|name|last_seen]',
      positionals: 0,
      options: {
        q: { type: 'string' },
        owner: { type: 'string' },
        status: { type: 'string' },
        sort: { type: 'string' },
        ...paging,
      },
      run: async (api, _, v) => ({
        kind: 'list',
        page: await list(
          api,
          '/api/v1/devices',
          { q: text(v, 'q'), owner: text(v, 'owner'), status: text(v, 'status'), sort: text(v, 'sort') },
          v,
        ),
        columns: DEVICE_COLUMNS,
      }),
    },
    get: {
      usage: 'get ID',
      positionals: 1,
      options: {},
      run: async (api, [id = '']) => ({ kind: 'one', item: (await api.get(`/api/v1/devices/${path(id)}`)) as Item }),
    },
    rename: {
      usage: 'rename ID NAME',
      positionals: 2,
      options: {},
      run: async (api, [id = '', name = '']) => ({
        kind: 'one',
        item: (await api.send('POST', `/api/v1/devices/${path(id)}/rename`, { name })) as Item,
      }),
    },
    revoke: {
      usage: 'revoke ID',
      positionals: 1,
      options: {},
      run: async (api, [id = '']) => {
        await api.send('POST', `/api/v1/devices/${path(id)}/revoke`);
        return { kind: 'done', message: `revoked ${id}` };
      },
    },
    delete: {
      usage: 'delete ID          (a revoked device, with its runs)',
      positionals: 1,
      options: {},
      run: async (api, [id = '']) => {
        await api.send('POST', `/api/v1/devices/${path(id)}/delete`);
        return { kind: 'done', message: `deleted ${id}` };
      },
    },
  },
  'enroll-tokens': {
    list: {
      usage: 'list',
      positionals: 0,
      options: { ...paging },
      run: async (api, _, v) => ({
        kind: 'list',
        page: await list(api, '/api/v1/enroll-tokens', {}, v),
        columns: TOKEN_COLUMNS,
      }),
    },
    mint: {
      usage:
        'mint [--uses N] [--expires-in SECONDS] [--name NAME] [--note TEXT]\n' +
        '[--max-privacy full|redacted|minimal] [--owner SUBJECT]',
      positionals: 0,
      options: {
        uses: { type: 'string' },
        'expires-in': { type: 'string' },
        name: { type: 'string' },
        note: { type: 'string' },
        'max-privacy': { type: 'string' },
        owner: { type: 'string' },
      },
      run: async (api, _, v) => {
        const body = Object.fromEntries(
          Object.entries({
            uses: wholeNumber(v, 'uses'),
            expires_in: wholeNumber(v, 'expires-in'),
            name: text(v, 'name'),
            note: text(v, 'note'),
            max_privacy: text(v, 'max-privacy'),
            owner: text(v, 'owner'),
          }).filter(([, value]) => value !== undefined),
        );
        const minted = (await api.send('POST', '/api/v1/enroll-tokens', body)) as { token: Item; link: string };
        const t = minted.token;
        return {
          kind: 'done',
          json: minted,
          message:
            `minted ${printable(t.id)} for ${printable(t.owner)}: ${printable(t.uses)} use(s), expires ${printable(t.expires_at)}\n` +
            `enrollment link (shown only now; it holds the token):\n${printable(minted.link)}`,
        };
      },
    },
    revoke: {
      usage: 'revoke ID',
      positionals: 1,
      options: {},
      run: async (api, [id = '']) => {
        await api.send('POST', `/api/v1/enroll-tokens/${path(id)}/revoke`);
        return { kind: 'done', message: `revoked ${id}` };
      },
    },
  },
  runs: {
    list: {
      usage: 'list [--device ID] [--privacy full|redacted|minimal] [--since DAY]\n' + '[--until DAY] [--flagged]',
      positionals: 0,
      options: {
        device: { type: 'string' },
        privacy: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        flagged: { type: 'boolean' },
        ...paging,
      },
      run: async (api, _, v) => ({
        kind: 'list',
        page: await list(
          api,
          '/api/v1/runs',
          {
            device: text(v, 'device'),
            privacy: text(v, 'privacy'),
            since: text(v, 'since'),
            until: text(v, 'until'),
            flagged: v.flagged ? 'yes' : undefined,
          },
          v,
        ),
        columns: RUN_COLUMNS,
      }),
    },
    get: {
      usage: 'get DEVICE ID',
      positionals: 2,
      options: {},
      run: async (api, [device = '', id = '']) => ({
        kind: 'one',
        item: (await api.get(`/api/v1/runs/${path(device, id)}`)) as Item,
      }),
    },
    delete: {
      usage: 'delete DEVICE ID',
      positionals: 2,
      options: {},
      run: async (api, [device = '', id = '']) => {
        await api.send('DELETE', `/api/v1/runs/${path(device, id)}`);
        return { kind: 'done', message: `deleted ${device}/${id}` };
      },
    },
    raw: {
      usage: 'raw DEVICE ID [--output FILE]   (the bytes as uploaded; to stdout without --output)',
      positionals: 2,
      options: { output: { type: 'string' } },
      run: async (api, [device = '', id = ''], v) => {
        const body = await api.download(`/api/v1/runs/${path(device, id)}/raw`);
        const output = text(v, 'output');
        if (output === undefined) {
          for await (const chunk of body) if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
          return { kind: 'done', message: '' };
        }
        // Written beside the file and linked to its name when whole: a failed download leaves
        // nothing behind, and an existing file is never replaced (link fails with EEXIST).
        const partial = `${output}.partial-${process.pid}`;
        try {
          await pipeline(Readable.fromWeb(body), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
          await link(partial, output);
        } finally {
          await rm(partial, { force: true });
        }
        return { kind: 'done', message: `wrote ${output}` };
      },
    },
  },
  audit: {
    list: {
      usage: 'list [--actor SUBJECT|system] [--event EVENT] [--device ID]\n' + '[--since DAY] [--until DAY]',
      positionals: 0,
      options: {
        actor: { type: 'string' },
        event: { type: 'string' },
        device: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        ...paging,
      },
      run: async (api, _, v) => ({
        kind: 'list',
        page: await list(
          api,
          '/api/v1/audit',
          {
            actor: text(v, 'actor'),
            event: text(v, 'event'),
            device: text(v, 'device'),
            since: text(v, 'since'),
            until: text(v, 'until'),
          },
          v,
        ),
        columns: AUDIT_COLUMNS,
      }),
    },
  },
};

export const ADMIN_VERBS = Object.keys(VERBS);

export function adminHelp(verb: string): string {
  const subs = VERBS[verb] ?? {};
  return `Usage:
${Object.entries(subs)
  .map(
    ([name, s]) => `  paddock ${verb} ${s.usage.replaceAll('\n', `\n${' '.repeat(verb.length + name.length + 12)}`)}`,
  )
  .join('\n')}

Lists take --before CURSOR (a page's "next") and --all (every page). Every command takes --json
(print the API's JSON instead of a table). Days are YYYY-MM-DD, UTC.

Reads PADDOCK_URL (the console address, e.g. https://paddock.example; http:// only on this machine)
and PADDOCK_TOKEN (a personal access token from the console's Access tokens page; never given as
an argument). A certificate from a private CA: NODE_EXTRA_CA_CERTS=/path/to/ca.pem.

Exit codes: 0 done; 1 the server refused or failed (its message on stderr), or the output file
could not be written; 2 a usage or configuration mistake; 3 the server could not be reached.
`;
}

/** Runs `paddock <verb> …`; the exit code. */
export async function adminCommand(verb: string, args: string[]): Promise<number> {
  const subs = VERBS[verb] ?? {};
  const [name, ...rest] = args;
  // `paddock audit` alone lists, as does `paddock audit --event …`.
  const listing =
    verb === 'audit' && (name === undefined || (name.startsWith('-') && name !== '--help' && name !== '-h'));
  if (listing) return adminCommand(verb, ['list', ...args]);
  if (name === undefined || name === '--help' || name === '-h') {
    (name === undefined ? process.stderr : process.stdout).write(adminHelp(verb));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const sub = subs[name];
  if (!sub) {
    process.stderr.write(`paddock ${verb}: unknown command "${printable(name)}"\n\n${adminHelp(verb)}`);
    return EXIT.usage;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...sub.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      process.stdout.write(adminHelp(verb));
      return EXIT.ok;
    }
    if (positionals.length !== sub.positionals) throw new CliFailure(`usage: paddock ${verb} ${sub.usage}`, EXIT.usage);
    const output = await sub.run(apiClient(process.env), positionals, values);
    const shown = values.json ? asJson(output) : asText(output);
    if (shown) process.stdout.write(shown);
    return EXIT.ok;
  } catch (err) {
    // parseArgs refuses unknown options and missing values with ERR_PARSE_ARGS_* codes.
    const parse = String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    const code = err instanceof CliFailure ? err.code : parse ? EXIT.usage : EXIT.refused;
    process.stderr.write(`paddock ${verb}: ${printable((err as Error).message)}\n`);
    return code;
  }
}

function asJson(output: Output): string {
  if (output.kind === 'list') return `${JSON.stringify(output.page)}\n`;
  if (output.kind === 'one') return `${JSON.stringify(output.item)}\n`;
  return output.json === undefined ? '' : `${JSON.stringify(output.json)}\n`;
}

function asText(output: Output): string {
  if (output.kind === 'one') return record(output.item);
  if (output.kind === 'done') return output.message ? `${output.message}\n` : '';
  const { page, columns } = output;
  const rows = page.items.map((item) => columns.map(([, field]) => field(item)));
  if (page.next !== undefined) process.stderr.write(`more: --before ${printable(page.next)}\n`);
  return page.items.length
    ? table(
        columns.map(([h]) => h),
        rows,
      )
    : 'none\n';
}
