/**
 * `paddock collections …` (docs/contract.md section 15): ask devices for a run, named ones or every
 * device the device list's filters match (the flags of that list's declaration, api/collection_body.ts),
 * and list, show and cancel such asks, over /api/v1/collections. `create --wait` follows the
 * collection until it closes, and its exit code says whether every device answered with a run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { COLLECTION_FILTER } from '../api/collection_body.ts';
import { parseDuration } from '../config/parse.ts';
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import { COLLECTION_TARGETS, COLLECTIONS } from '../lists/collections.ts';
import { type ApiClient, CliFailure, EXIT } from './api_client.ts';
import {
  type Columns,
  flag,
  flagsUsage,
  type Item,
  list,
  listCommand,
  listFlags,
  listQuery,
  path,
  type SubCommand,
  text,
  texts,
  type Values,
} from './sub_command.ts';
import { printable } from './table.ts';

type Counts = Record<string, number>;
const countsOf = (c: Item) => (c.counts ?? {}) as Counts;
const total = (counts: Counts) => Object.values(counts).reduce((a, b) => a + b, 0);

const COLLECTION_COLUMNS: Columns = [
  ['ID', (c) => c.id],
  ['CREATED', (c) => c.created_at],
  ['BY', (c) => c.created_by],
  ['PRIVACY', (c) => c.privacy],
  ['STATE', (c) => (c.open ? 'open' : 'closed')],
  ['FULFILLED', (c) => `${countsOf(c).fulfilled ?? 0}/${total(countsOf(c))}`],
  ['REASON', (c) => c.reason],
];

const TARGET_COLUMNS: Columns = [
  ['REQUEST', (t) => t.request],
  ['DEVICE', (t) => t.device],
  ['NAME', (t) => t.device_name],
  ['STATE', (t) => t.state],
  ['SINCE', (t) => t.since],
  ['RUN OR REASON', (t) => t.run ?? t.reason],
];

/** How often --wait asks at first, and at most once nothing changes for a while. */
const WAIT_POLL_MS = { first: 1000, most: 10_000 } as const;

const usage = (message: string) => new CliFailure(`collections create: ${message}`, EXIT.usage);
/** `--q, --owner, --status`, `or --label`: the filter flags, from the declaration. */
const filterNames = Object.keys(COLLECTION_FILTER.parameters).map((name) => `--${flag(name)}`);
const filterList = `${filterNames.slice(0, -1).join(', ')} or ${filterNames.at(-1) ?? ''}`;

/** The request body of the flags: named devices or the filter, the ask's fields, checked for shape here. */
function createBody(v: Values): Record<string, unknown> {
  const devices = texts(v, 'device');
  const filter = Object.fromEntries(
    Object.entries(listQuery(COLLECTION_FILTER, v)).filter(([, value]) => value !== undefined),
  );
  if (devices.length > 0 && Object.keys(filter).length > 0)
    throw usage(`give either --device or filters (${filterNames.join(', ')}), not both`);
  if (devices.length === 0 && Object.keys(filter).length === 0)
    throw usage(`name the devices with --device, or match them with ${filterList}`);
  const privacy = text(v, 'privacy');
  const reason = text(v, 'reason');
  if (privacy === undefined) throw usage(`--privacy is required (${PRIVACY_LEVELS.join(', ')})`);
  if (reason === undefined) throw usage('--reason is required (the device may show it to its user)');
  const body: Record<string, unknown> = { privacy, reason, ...(devices.length > 0 ? { devices } : { filter }) };
  const expires = text(v, 'expires-in');
  if (expires !== undefined) {
    try {
      body.expires_in = parseDuration(expires) / 1000;
    } catch (err) {
      throw usage(`--expires-in ${(err as Error).message}`);
    }
  }
  return body;
}

/** `c_…: 2/3 answered (fulfilled 1, declined 1), 1 open`: a collection's progress in one line. */
function progress(c: Item): string {
  const counts = countsOf(c);
  const open = (counts.pending ?? 0) + (counts.delivered ?? 0);
  const answered = ['fulfilled', 'declined', 'expired', 'cancelled', 'skipped']
    .filter((s) => (counts[s] ?? 0) > 0)
    .map((s) => `${s} ${counts[s]}`);
  const all = total(counts);
  const state = c.open ? `${open} open` : 'closed';
  return `${printable(c.id)}: ${all - open}/${all} answered${answered.length ? ` (${answered.join(', ')})` : ''}, ${state}`;
}

/** Every target fulfilled, and there was one at least: what `--wait` exits 0 for. */
const allFulfilled = (c: Item) => total(countsOf(c)) > 0 && countsOf(c).fulfilled === total(countsOf(c));

/** Polls the collection until it closes, saying on stderr how far it got whenever that changes. */
async function waitUntilClosed(api: ApiClient, created: Item): Promise<Item> {
  let c = created;
  let said = progress(c);
  process.stderr.write(`${said}\n`);
  let pause: number = WAIT_POLL_MS.first;
  while (c.open) {
    await sleep(pause);
    c = (await api.get(`/api/v1/collections/${path(String(c.id))}`)) as Item;
    const now = progress(c);
    // Asked often while devices answer, less and less often while none does.
    pause = now === said ? Math.min(WAIT_POLL_MS.most, Math.round(pause * 1.5)) : WAIT_POLL_MS.first;
    if (now !== said) process.stderr.write(`${now}\n`);
    said = now;
  }
  return c;
}

const filterFlags = listFlags(COLLECTION_FILTER);
delete filterFlags.all;

export const COLLECTION_COMMANDS: Record<string, SubCommand> = {
  list: listCommand(COLLECTIONS, '/api/v1/collections', COLLECTION_COLUMNS),
  create: {
    usage:
      `${flagsUsage('create (--device ID… |', COLLECTION_FILTER)})\n` +
      `--privacy ${PRIVACY_LEVELS.join('|')} --reason TEXT\n[--expires-in DURATION] [--wait]`,
    note:
      'asks the devices for a run at that level or a more private one;\n' +
      "filters are the device list's, and all must hold; DURATION is a\n" +
      'whole number and s, m, h or d (60s to 7d, 1d when not given);\n' +
      '--wait says on stderr how far it got until it closes, then exits\n' +
      '0 if every device it reached sent a run, 1 if not (declined,\n' +
      'expired, cancelled, skipped, or no device reached)',
    positionals: 0,
    options: {
      device: { type: 'string', multiple: true },
      ...filterFlags,
      privacy: { type: 'string' },
      reason: { type: 'string' },
      'expires-in': { type: 'string' },
      wait: { type: 'boolean' },
    },
    run: async (api, _, v) => {
      const created = (await api.send('POST', '/api/v1/collections', createBody(v))) as Item;
      if (!v.wait) return { kind: 'one', item: created };
      const closed = await waitUntilClosed(api, created);
      if (allFulfilled(closed)) return { kind: 'one', item: closed };
      process.stderr.write(`paddock collections: not every device sent a run: ${progress(closed)}\n`);
      return { kind: 'one', item: closed, exit: EXIT.refused };
    },
  },
  show: {
    usage: flagsUsage('show ID', COLLECTION_TARGETS),
    note: 'the collection, then its devices; --json: {"collection", "targets"}',
    positionals: 1,
    options: listFlags(COLLECTION_TARGETS),
    run: async (api, [id = ''], v) => {
      const collection = (await api.get(`/api/v1/collections/${path(id)}`)) as Item;
      const at = `/api/v1/collections/${path(id)}/targets`;
      const page = await list(api, at, listQuery(COLLECTION_TARGETS, v), v);
      return {
        kind: 'one-and-list',
        item: collection,
        page,
        columns: TARGET_COLUMNS,
        json: { collection, targets: page },
      };
    },
  },
  cancel: {
    usage: 'cancel ID          (devices that have not answered are asked no more)',
    positionals: 1,
    options: {},
    run: async (api, [id = '']) => {
      const c = (await api.send('POST', `/api/v1/collections/${path(id)}/cancel`)) as Item;
      return { kind: 'done', message: `cancelled ${progress(c)}`, json: c };
    },
  },
};
