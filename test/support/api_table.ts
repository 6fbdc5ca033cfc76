/**
 * The JSON API as tables of rows (test/api/scenarios.test.ts, test/api/collections.test.ts): one row
 * is one request by one token on a fresh world, run on both stores, and what must come back (status,
 * problem field, the exact events, the audit records), checked against the served OpenAPI
 * document; a row's own `check` says what must have changed. Each table also checks that its rows
 * cover every operation of the document it owns.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { OPENAPI } from '../../src/api/openapi.ts';
import type { EventName } from '../../src/events/catalogue.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { secretHash } from '../../src/crypto/random.ts';
import { newAccessToken } from '../../src/domain/access_tokens.ts';
import type { Harness } from './harness.ts';
import { responseChecker } from './openapi.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from './postgres.ts';
import { ACCOUNTS, assertEvents } from './scenario.ts';

/** What a table's rows start from: a harness, tokens by name, and ids that rows name as `{key}`. */
export interface ApiWorld {
  h: Harness;
  tokens: Record<string, string>;
  ids: Record<string, string>;
}

export interface ApiRow<W extends ApiWorld> {
  name: string;
  /** The token the request carries; none without. */
  as?: keyof W['tokens'] & string;
  method?: 'GET' | 'POST' | 'DELETE';
  /** `{key}` stands for the world's `ids[key]`. */
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- any JSON value but undefined
  json?: {} | null | ((ids: W['ids']) => unknown);
  body?: string;
  headers?: Record<string, string>;
  status: number;
  /** The problem's `field`, for a 400. */
  field?: string;
  /** Exactly the events the request emits, in order (PocketBase's ExpectedEvents). */
  events?: EventName[];
  /** Audit records (event, account) that must be stored after the request. */
  audited?: Array<[string, string]>;
  check?: (w: W, body: unknown, res: Response) => Promise<void> | void;
}

/** A new access token of one of the scenario accounts (signed in once, so it is live), valid for an hour. */
export async function apiToken(
  h: Harness,
  who: keyof typeof ACCOUNTS,
  scope: 'read' | 'write' = 'write',
): Promise<string> {
  const token = newAccessToken();
  const a = ACCOUNTS[who];
  const now = h.clock.now();
  await h.store.createAccessToken({
    hash: secretHash(token),
    subject: a.subject,
    admin: a.admin,
    scope,
    name: `${who} ${scope}`,
    createdAt: now,
    expiresAt: now + 3_600_000,
  });
  await h.store.recordSignIn({ ...a, lastSignInAt: now });
  return token;
}

/** The document's path template a concrete path is an instance of. */
const templates = Object.keys(OPENAPI.paths).map((t) => ({
  t,
  re: new RegExp(`^${t.replace(/\{[a-z]+\}/g, '[^/]+')}$`),
}));
const templateOf = (path: string) => templates.find(({ re }) => re.test(path.split('?')[0] ?? ''))?.t ?? path;

const checkResponse = responseChecker();

/** Sends one row's request in its world and checks everything the row and the document say. */
export async function play<W extends ApiWorld>(row: ApiRow<W>, w: W): Promise<void> {
  const path = row.path.replace(/\{([A-Za-z0-9]+)\}/g, (whole, k: string) => w.ids[k] ?? whole);
  const headers: Record<string, string> = { ...row.headers };
  if (row.as) headers.authorization = `Bearer ${w.tokens[row.as]}`;
  let body = row.body;
  if (row.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(typeof row.json === 'function' ? (row.json as (ids: W['ids']) => unknown)(w.ids) : row.json);
  }
  const method = row.method ?? 'GET';
  const heard = w.h.logs.length;
  const res = await w.h.request(path, { method, headers, body }, '192.0.2.44');
  const text = await res.text();
  if (row.events !== undefined) assertEvents(w.h, heard, row.events);
  assert.equal(res.status, row.status, `${method} ${path}: ${text.slice(0, 300)}`);
  const type = res.headers.get('content-type') ?? '';
  const parsed: unknown = type.includes('json') && text ? JSON.parse(text) : text;
  checkResponse(method, templateOf(path), res.status, type, parsed);
  if (res.status >= 400) {
    assert.equal(type, 'application/problem+json');
    assert.equal((parsed as { status: number }).status, res.status);
    assert.equal((parsed as { field?: string }).field, row.field);
  }
  if (res.status === 401) assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
  if (res.status === 403)
    assert.ok(w.h.logs.some((r) => r.event === 'access.admin_refused' || r.event === 'access.read_only_refused'));
  assert.equal(res.headers.get('cache-control'), 'no-store');
  await row.check?.(w, parsed, res);
  await w.h.flushAudit();
  for (const [event, account] of row.audited ?? []) {
    const stored = await w.h.store.auditPage({ event }, { limit: 50 });
    assert.ok(
      stored.items.some((r) => r.account === account),
      `${event} by ${account} in ${JSON.stringify(stored.items)}`,
    );
  }
}

/**
 * Registers the table: every row on SQLite and on PostgreSQL, each in a world of its own, and a
 * test that the rows cover every operation of the document whose path `owns` accepts.
 */
export async function apiTable<W extends ApiWorld>(
  rows: ReadonlyArray<ApiRow<W>>,
  world: (store?: Store) => Promise<W>,
  coverage: { title: string; owns: (path: string) => boolean },
): Promise<void> {
  const run = async (row: ApiRow<W>, store?: Store) => {
    const w = await world(store);
    try {
      await play(row, w);
    } finally {
      await w.h.close();
    }
  };
  for (const row of rows) test(`sqlite: ${row.name}`, () => run(row));

  const available = await postgresAvailable();
  after(() => (available ? dropSchemas() : undefined));
  for (const row of rows)
    test(`postgres: ${row.name}`, { skip: !available && SKIP_REASON }, async () =>
      run(row, await openPostgresStore(PG_URL, { schema: freshSchema() })),
    );

  test(coverage.title, () => {
    const covered = new Set(rows.map((r) => `${(r.method ?? 'GET').toLowerCase()} ${templateOf(r.path)}`));
    for (const [path, operations] of Object.entries(OPENAPI.paths)) {
      if (!coverage.owns(path)) continue;
      for (const method of Object.keys(operations)) assert.ok(covered.has(`${method} ${path}`), `${method} ${path}`);
    }
  });
}

export { checkResponse };
