/**
 * The admin CLI's sub-commands (docs/contract.md section 11), one row each: its arguments, its options
 * (each option is the API parameter or body field of the same name), the API call, and what it
 * prints (a list with its columns, one record, or a confirmation). Run by cli/admin.ts; collection
 * requests have a file of their own (cli/collections_commands.ts).
 */
import { AUDIT } from '../lists/audit.ts';
import { DEVICES } from '../lists/devices.ts';
import { parseOwner } from '../domain/owners.ts';
import { ACCESS_TOKENS, ENROLL_TOKENS } from '../lists/pages.ts';
import { parseLabel, parseLabelKey } from '../domain/labels.ts';
import { RUNS } from '../lists/runs.ts';
import { CliFailure, EXIT } from './api_client.ts';
import { COLLECTION_COMMANDS } from './collections_commands.ts';
import { runsDiff } from './runs_diff.ts';
import { STDOUT, writeRunBytes } from './runs_raw.ts';
import {
  type Columns,
  type Item,
  listCommand,
  path,
  type SubCommand,
  text,
  texts,
  type Values,
} from './sub_command.ts';
import { pairs, printable } from './table.ts';

export type { Columns, Item, Output, Page, SubCommand, Values } from './sub_command.ts';

/**
 * `key=value` arguments as a labels object, checked before anything is sent: a bad one is a usage
 * mistake naming the label (the server checks again).
 */
function labelArguments(given: readonly string[], what: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const text of given) {
    const read = parseLabel(text);
    if (!read.ok) throw new CliFailure(`${what}: ${read.error}`, EXIT.usage);
    if (Object.hasOwn(labels, read.value.key))
      throw new CliFailure(
        `${what}: label ${JSON.stringify(text)}: the key ${read.value.key} is given twice`,
        EXIT.usage,
      );
    labels[read.value.key] = read.value.value;
  }
  return labels;
}

const DEVICE_COLUMNS: Columns = [
  ['ID', (d) => d.id],
  ['NAME', (d) => d.name],
  ['OWNER', (d) => d.owner],
  // docs/contract.md section 16: why a device waits, when not since its enrollment.
  ['STATUS', (d) => (typeof d.pending_reason === 'string' ? `${String(d.status)} (${d.pending_reason})` : d.status)],
  ['LAST SEEN', (d) => d.last_seen_at],
  ['LABELS', (d) => labelsText(d.labels)],
];

/** A labels object as `k=v,k2=v2`, or `-` for none. */
const labelsText = (labels: unknown) => pairs(labels ?? {});
const RUN_COLUMNS: Columns = [
  ['DEVICE', (r) => r.device],
  ['ID', (r) => r.id],
  ['PRIVACY', (r) => r.privacy],
  ['SIZE', (r) => r.size],
  ['UPLOADED', (r) => r.uploaded_at],
  ['FLAGGED', (r) => (r.flagged ? 'yes' : '')],
];
/** A search's runs (docs/contract.md section 21) also show their first matching line: its number and text. */
const matchOf = (r: Item) => (r.match ?? {}) as { line?: number; text?: string };
const SEARCH_COLUMNS: Columns = [...RUN_COLUMNS, ['LINE', (r) => matchOf(r).line], ['MATCH', (r) => matchOf(r).text]];
const RUNS_LIST = listCommand(RUNS, '/api/v1/runs', RUN_COLUMNS);
const TOKEN_COLUMNS: Columns = [
  ['ID', (t) => t.id],
  ['OWNER', (t) => t.owner],
  ['USES LEFT', (t) => `${String(t.uses_left)}/${String(t.uses)}`],
  ['EXPIRES', (t) => t.expires_at],
  ['MAX PRIVACY', (t) => t.max_privacy],
  ['NAME', (t) => t.name || '-'],
  ['NOTE', (t) => t.note || '-'],
  ['LABELS', (t) => labelsText(t.labels)],
  ['APPROVAL', (t) => t.approval],
];
const ACCESS_TOKEN_COLUMNS: Columns = [
  ['ID', (t) => t.id],
  ['NAME', (t) => t.name],
  ['SCOPE', (t) => t.scope],
  ['EXPIRES', (t) => t.expires_at],
  ['LAST USED', (t) => t.last_used_at ?? '-'],
  ['STATE', (t) => t.state],
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

/**
 * `paddock devices approve|reject ID…` (docs/contract.md section 16): each device on its own, as the
 * console's bulk form does; one that is refused (unknown, not pending) is named on stderr and the
 * others still go. Exit 1 when any was refused; an unreachable server stops at once (exit 3).
 */
function approval(action: 'approve' | 'reject', done: string): SubCommand {
  return {
    usage: `${action} ID…`,
    note: action === 'reject' ? 'a rejected device is revoked: its credential is refused from then on' : undefined,
    positionals: 1,
    more: true,
    options: {},
    run: async (api, ids) => {
      const acted: string[] = [];
      const refused: Array<{ id: string; error: string }> = [];
      for (const id of ids)
        try {
          await api.send('POST', `/api/v1/devices/${path(id)}/${action}`);
          acted.push(id);
        } catch (err) {
          if (!(err instanceof CliFailure) || err.code !== EXIT.refused) throw err;
          refused.push({ id, error: err.message });
          process.stderr.write(`paddock devices ${action}: ${printable(id)}: ${printable(err.message)}\n`);
        }
      return {
        kind: 'done',
        message: acted.map((id) => `${done} ${printable(id)}`).join('\n'),
        json: { [done]: acted, refused },
        ...(refused.length > 0 ? { exit: EXIT.refused } : {}),
      };
    },
  };
}

/**
 * `paddock devices owner OWNER ID…` (docs/contract.md section 19): hands each device, with its runs,
 * over to OWNER (a subject or group:<name>, checked before any is sent), each on its own as the
 * console's bulk form does; a refused one is named on stderr and the others still go (exit 1).
 */
const handOver: SubCommand = {
  usage: 'owner OWNER ID…    (hands each device and its runs over to OWNER: a subject or group:<name>)',
  positionals: 2,
  more: true,
  options: {},
  run: async (api, [owner = '', ...ids]) => {
    const read = parseOwner(owner);
    if (!read.ok) throw new CliFailure(`devices owner: ${read.message}`, EXIT.usage);
    const moved: string[] = [];
    const refused: Array<{ id: string; error: string }> = [];
    for (const id of ids)
      try {
        await api.send('POST', `/api/v1/devices/${path(id)}/owner`, { owner: read.owner });
        moved.push(id);
      } catch (err) {
        if (!(err instanceof CliFailure) || err.code !== EXIT.refused) throw err;
        refused.push({ id, error: err.message });
        process.stderr.write(`paddock devices owner: ${printable(id)}: ${printable(err.message)}\n`);
      }
    return {
      kind: 'done',
      message: moved.map((id) => `handed ${printable(id)} over to ${printable(read.owner)}`).join('\n'),
      json: { owner: read.owner, handed_over: moved, refused },
      ...(refused.length > 0 ? { exit: EXIT.refused } : {}),
    };
  },
};

export const VERBS: Record<string, Record<string, SubCommand>> = {
  devices: {
    list: listCommand(DEVICES, '/api/v1/devices', DEVICE_COLUMNS),
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
    label: {
      usage: 'label ID [key=value…] [--remove KEY]…   (sets and removes labels; the others stay)',
      positionals: 1,
      more: true,
      options: { remove: { type: 'string', multiple: true } },
      run: async (api, [id = '', ...pairs], v) => {
        const set = labelArguments(pairs, 'devices label');
        const remove = texts(v, 'remove');
        for (const key of remove) {
          const read = parseLabelKey(key);
          if (!read.ok) throw new CliFailure(`devices label: --remove ${read.error}`, EXIT.usage);
        }
        if (pairs.length === 0 && remove.length === 0)
          throw new CliFailure('usage: paddock devices label ID key=value… [--remove KEY]…', EXIT.usage);
        return {
          kind: 'one',
          item: (await api.send('POST', `/api/v1/devices/${path(id)}/labels`, { set, remove })) as Item,
        };
      },
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
    rotate: {
      usage: 'rotate ID          (its next answer asks it to rotate its credential)',
      positionals: 1,
      options: {},
      run: async (api, [id = '']) => {
        await api.send('POST', `/api/v1/devices/${path(id)}/rotate`);
        return { kind: 'done', message: `asked ${id} to rotate its credential` };
      },
    },
    owner: handOver,
    approve: approval('approve', 'approved'),
    reject: approval('reject', 'rejected'),
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
    list: listCommand(ENROLL_TOKENS, '/api/v1/enroll-tokens', TOKEN_COLUMNS),
    mint: {
      usage:
        'mint [--uses N] [--expires-in SECONDS] [--name NAME] [--note TEXT]\n' +
        '[--max-privacy full|redacted|minimal] [--owner SUBJECT|group:NAME] [--label key=value]…\n' +
        '[--approval automatic|required]',
      positionals: 0,
      options: {
        uses: { type: 'string' },
        'expires-in': { type: 'string' },
        name: { type: 'string' },
        note: { type: 'string' },
        'max-privacy': { type: 'string' },
        owner: { type: 'string' },
        label: { type: 'string', multiple: true },
        approval: { type: 'string' },
      },
      run: async (api, _, v) => {
        const labels = texts(v, 'label');
        const body: Record<string, unknown> = Object.fromEntries(
          Object.entries({
            uses: wholeNumber(v, 'uses'),
            expires_in: wholeNumber(v, 'expires-in'),
            name: text(v, 'name'),
            note: text(v, 'note'),
            max_privacy: text(v, 'max-privacy'),
            owner: text(v, 'owner'),
            approval: text(v, 'approval'),
          }).filter(([, value]) => value !== undefined),
        );
        if (labels.length > 0) body.labels = labelArguments(labels, 'enroll-tokens mint');
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
      ...RUNS_LIST,
      run: async (api, args, v) => {
        const out = await RUNS_LIST.run(api, args, v);
        return out.kind === 'list' && text(v, 'text') !== undefined ? { ...out, columns: SEARCH_COLUMNS } : out;
      },
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
      usage: `raw DEVICE ID [--output FILE|${STDOUT}]`,
      note:
        `the bytes as uploaded: into FILE, which must not exist, or with ${STDOUT} to stdout;\n` +
        "without --output, to stdout unless it is a terminal: a device's bytes may carry\n" +
        'escape sequences a terminal obeys, such as setting the clipboard or the title',
      positionals: 2,
      options: { output: { type: 'string' } },
      run: async (api, [device = '', id = ''], v) =>
        writeRunBytes(api, `/api/v1/runs/${path(device, id)}/raw`, text(v, 'output')),
    },
    diff: {
      usage: 'diff DEVICE/ID DEVICE/ID',
      note:
        'the unified diff (diff -u) of the first run, old, and the second, new, for patch -u;\n' +
        'nothing when they are the same; exit 0 either way (not 1 on differences, as diff(1) does)',
      positionals: 2,
      options: {},
      run: async (api, [oldRun = '', newRun = '']) => runsDiff(api, oldRun, newRun),
    },
  },
  collections: COLLECTION_COMMANDS,
  audit: {
    list: listCommand(AUDIT, '/api/v1/audit', AUDIT_COLUMNS),
  },
  // docs/contract.md sections 11, 14 and 20: the account's own personal access tokens.
  tokens: {
    list: listCommand(ACCESS_TOKENS, '/api/v1/tokens', ACCESS_TOKEN_COLUMNS),
    create: {
      usage: 'create NAME [--expires-in SECONDS] [--scope read|write|scim]',
      note: "scim: an administrator's token for the identity provider, which works only under /scim/v2",
      positionals: 1,
      options: { 'expires-in': { type: 'string' }, scope: { type: 'string' } },
      run: async (api, [name = ''], v) => {
        const body: Record<string, unknown> = Object.fromEntries(
          Object.entries({ name, expires_in: wholeNumber(v, 'expires-in'), scope: text(v, 'scope') }).filter(
            ([, value]) => value !== undefined,
          ),
        );
        const made = (await api.send('POST', '/api/v1/tokens', body)) as { token: Item; value: string };
        return {
          kind: 'done',
          json: made,
          message:
            `created ${printable(made.token.id)} (${printable(made.token.scope)}), expires ${printable(made.token.expires_at)}\n` +
            `token (shown only now):\n${printable(made.value)}`,
        };
      },
    },
    revoke: {
      usage: 'revoke ID',
      positionals: 1,
      options: {},
      run: async (api, [id = '']) => {
        await api.send('POST', `/api/v1/tokens/${path(id)}/revoke`);
        return { kind: 'done', message: `revoked ${id}` };
      },
    },
  },
};

/** The admin commands' verbs (`paddock devices …`), in the order of VERBS. */
export const ADMIN_VERBS = Object.keys(VERBS);
