/**
 * Issue 44 (docs/contract.md section 21): reading, searching and comparing runs, on SQLite and on
 * PostgreSQL. Per store: 1,000,000 log-like text runs of about 1 KiB (a vocabulary of 3,000 words,
 * timestamps, levels, hex ids) inserted directly with SQL, each with its words as the upload writes
 * them (src/domain/words.ts); then through a real `paddock serve`:
 *   - the search for a word held by exactly 10 runs and for one held by every run (first page),
 *     p50 and p95 of sequential requests, as an administrator and as an account owning 1 % of the runs;
 *   - the index's size against the text it indexes;
 *   - a 16 MiB text run uploaded, indexed whole and found by a word of its last line alone, the time
 *     to store it and the server's resident memory meanwhile;
 *   - the first, a middle and the last page of a 30,000-line run against bench/page_baseline_server.ts;
 *   - a compare of two 2 MiB runs with 1 % of lines changed (API, text/plain diff): p50, server CPU;
 *   - uploads of 1 KiB text runs against the same server with its store opened without the index
 *     (bench/text_no_words.ts), alternated.
 * Writes the section "Issue 44: …" of bench/results.md (a --quick or partial run only prints).
 *
 * `node bench/run_text.ts [--quick] [--runs N] [--no-postgres] [--no-sqlite] [--only size,large,search,compare,pages,uploads]`
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { indexTextOf, parseTextQuery } from '../src/domain/words.ts';
import { openPostgresStore } from '../src/store/postgres/store.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import type { Store } from '../src/store/store.ts';
import { startBaselineServer } from './baseline.ts';
import { comparer } from './compare.ts';
import { adminApiToken } from './dataset.ts';
import { cpuMicros, load, type LoadResult, peakRssMiB, rssMiB } from './load.ts';
import { benchDatabase, withClient } from './postgres.ts';
import { type Row, writeSection } from './report.ts';
import { SERVER_FLAGS, sessionCookie, startPaddock, type BenchServer } from './server.ts';
import {
  changedPair,
  firstLine,
  firstLineSql,
  largeText,
  linesText,
  needleLine,
  poolText,
  runText,
  wordsText,
} from './text_runs.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    'no-postgres': { type: 'boolean', default: false },
    'no-sqlite': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
/** The row groups to measure (all by default); a run of only some prints and writes nothing. */
const ROW_GROUPS = ['size', 'large', 'search', 'compare', 'pages', 'uploads'] as const;
const only = new Set(values.only?.split(',') ?? ROW_GROUPS);
for (const group of only)
  if (!(ROW_GROUPS as readonly string[]).includes(group)) throw new Error(`--only: no row group ${group}`);
const measures = (group: (typeof ROW_GROUPS)[number]) => only.has(group);
const quick = values.quick;
const RUNS = Number(values.runs ?? (quick ? 20_000 : 1_000_000));
const DEVICES = 1_000;
const ACCOUNTS = 100;
const OWNER = 'oidc:account-0';
const UPLOADERS = 50;
const DURATION = quick ? 2 : 5;
const ROUNDS = quick ? 1 : 2;
const SEARCHES = quick ? 20 : 40;
const COMPARES = quick ? 10 : 20;
/** Held by 10 runs each: the first in runs of every account, the second in the owner's runs only. */
const NEEDLE = 'quokkaneedle';
const OWNER_NEEDLE = 'wombatneedle';
const MARKER = 'walrusmarker';
const COMMON = 'info';
/** A run every five seconds (a whole second: firstLineSql's times have no fraction). */
const RUN_EVERY_MS = 5_000;
const SESSION_KEY = createHash('sha256').update('run_text bench').digest();

const log = (line: string) => process.stderr.write(`run_text: ${line}\n`);
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/**
 * The dataset's run bodies after their first line: a pool of this many log texts of about 1 KiB,
 * each run one of them after a first line of its own (firstLine: its time and trace id). Made
 * once here, written by SQL from a table of the pool on PostgreSQL, by a loop on SQLite: the same
 * texts on both, and a million of them load in minutes, not the half hour of making each anew.
 */
const POOL = 16_384;
const pool = Array.from({ length: POOL }, (_, k) => poolText(k + 1, 1000 - 90));
const poolWords = pool.map(wordsText);

/** Run i of the dataset: device i mod DEVICES, whose owner is account (device mod ACCOUNTS): account-0 owns 1 %. */
function datasetRun(i: number, from: number) {
  const device = i % DEVICES;
  const at = from + i * RUN_EVERY_MS;
  const needle = needles.get(i);
  const text = firstLine(i, at) + pool[i % POOL] + (needle === undefined ? '' : needleLine(needle));
  return { device: `d_text${device}`, owner: `oidc:account-${device % ACCOUNTS}`, id: `run-${i}`, at, text };
}
/** Ten runs spread over the store for each needle: NEEDLE's at i ≡ 37 (mod 100, account-37), OWNER_NEEDLE's at i ≡ 0. */
const needles = new Map<number, string>();
for (let k = 0; k < 10; k++) {
  needles.set((k * RUNS) / 10 + 37, NEEDLE);
  needles.set((k * RUNS) / 10 + 500, OWNER_NEEDLE);
}

interface Result {
  store: string;
  target: string;
  figure: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: boolean | undefined;
}
const results: Result[] = [];
const notes: string[] = [];
const add = (r: Result) => {
  results.push(r);
  log(
    `${r.store}: ${r.target}: ${r.figure}${r.ratio ? ` (${r.ratio})` : ''} ${r.met === undefined ? '' : r.met ? 'met' : 'MISSED'}`,
  );
};

/** Checks on a sample that the words written equal what the upload would write (indexTextOf). */
async function checkWords(): Promise<void> {
  for (const i of [0, 1, 37, 500, RUNS - 1]) {
    const r = datasetRun(i, 0);
    const want = (await indexTextOf(Buffer.from(r.text)))?.split(' ').sort().join(' ');
    if (runWords(i, r.text).split(' ').sort().join(' ') !== want) throw new Error(`run ${i}: words differ`);
  }
}

// ---------------------------------------------------------------------------------------------
// Loading: the schema through the store (its migrations), the rows in bulk.

/** Devices of the dataset (SQL), and the uploaders through enrollment (their credentials). */
async function enrollUploaders(store: Store): Promise<string[]> {
  const credentials: string[] = [];
  for (let i = 0; i < UPLOADERS; i++) {
    const credential = createHash('sha256').update(`uploader ${i}`).digest('base64url');
    await store.createEnrollToken({
      hash: `upload-token-${i}`,
      owner: 'oidc:uploader',
      createdBy: 'local:admin',
      createdAt: 0,
      expiresAt: 1e13,
    });
    await store.enrollDevice({
      tokenHash: `upload-token-${i}`,
      now: Date.now(),
      deviceId: `d_upload${i}`,
      name: `uploader ${i}`,
      credentialHash: sha(credential),
    });
    credentials.push(credential);
  }
  return credentials;
}

async function loadSqlite(dataDir: string, from: number): Promise<void> {
  const db = new DatabaseSync(join(dataDir, 'paddock.db'));
  db.exec('PRAGMA synchronous = OFF; PRAGMA cache_size = -1000000');
  const device = db.prepare(
    'INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  db.exec('BEGIN');
  for (let d = 0; d < DEVICES; d++)
    device.run(
      `d_text${d}`,
      `text device ${d}`,
      `text device ${d}`,
      `oidc:account-${d % ACCOUNTS}`,
      `text-cred-${d}`,
      from,
      from,
    );
  db.exec('COMMIT');
  const run = db.prepare(
    `INSERT INTO runs (seq, device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body)
     VALUES (?, ?, ?, ?, 'text/plain', 'full', ?, ?, ?, ?)`,
  );
  const words = db.prepare('INSERT INTO run_words (rowid, words) VALUES (?, ?)');
  const BATCH = 50_000;
  for (let start = 0; start < RUNS; start += BATCH) {
    db.exec('BEGIN');
    for (let i = start; i < Math.min(RUNS, start + BATCH); i++) {
      const r = datasetRun(i, from);
      const body = Buffer.from(r.text);
      run.run(i + 1, r.device, r.id, r.owner, body.length, sha(body), r.at, body);
      words.run(i + 1, runWords(i, r.text));
    }
    db.exec('COMMIT');
    if ((start + BATCH) % 200_000 === 0) log(`SQLite: ${start + BATCH} runs`);
  }
  db.exec('ANALYZE');
  db.close();
}

/**
 * The words the upload would write for run i: its first line's and its pooled body's (made once),
 * distinct; a needle's run made whole.
 */
function runWords(i: number, text: string): string {
  if (needles.has(i)) return wordsText(text);
  const first = text.slice(0, text.indexOf('\n') + 1);
  return [...new Set([...wordsText(first).split(' '), ...(poolWords[i % POOL] ?? '').split(' ')])].join(' ');
}

/**
 * PostgreSQL: the pool in a table, the runs written from it by generate_series in the database,
 * in order (their seq as the run's number), each needle's run from here in its place.
 */
async function loadPostgres(url: string, from: number): Promise<void> {
  await withClient(url, async (c) => {
    await c.query(
      `INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at)
       SELECT 'd_text' || i, 'text device ' || i, 'text device ' || i, 'oidc:account-' || (i % $2), 'text-cred-' || i, $3::bigint, $3::bigint
       FROM generate_series(0, $1 - 1) AS i`,
      [DEVICES, ACCOUNTS, from],
    );
    await c.query('CREATE TEMPORARY TABLE pool (k int PRIMARY KEY, body text NOT NULL, words text[] NOT NULL)');
    await c.query(
      "INSERT INTO pool SELECT k - 1, b, string_to_array(w, ' ') FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u (b, w, k)",
      [pool, poolWords],
    );
    // The GIN index built once after the rows (as CREATE INDEX builds it), not entry by entry.
    const gin = (await c.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'runs_words'")).rows[0] as
      { indexdef: string } | undefined;
    if (!gin) throw new Error('PostgreSQL: no index runs_words');
    await c.query('DROP INDEX runs_words');
    const generated = `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, words)
      SELECT 'd_text' || (i % ${DEVICES}), 'run-' || i, 'oidc:account-' || (i % ${DEVICES} % ${ACCOUNTS}), 'text/plain', 'full',
        octet_length(t.body), encode(sha256(t.body), 'hex'), t.at, t.body,
        ARRAY(SELECT DISTINCT w FROM unnest(regexp_split_to_array(lower(f.first), '[^a-z0-9]+') || p.words) AS w WHERE w <> '')
      FROM generate_series($1::bigint, $2::bigint - 1) AS i
        JOIN pool AS p ON p.k = i % ${POOL}
        CROSS JOIN LATERAL (SELECT $3::bigint + i * ${RUN_EVERY_MS} AS at) AS a
        CROSS JOIN LATERAL (SELECT ${firstLineSql('i', 'a.at')} AS first) AS f
        CROSS JOIN LATERAL (SELECT convert_to(f.first || p.body, 'UTF8') AS body, a.at) AS t
      ORDER BY i`;
    const one = `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, words)
      VALUES ($1, $2, $3, 'text/plain', 'full', $4, $5, $6, $7, string_to_array($8, ' '))`;
    const BATCH = 100_000;
    let at = 0;
    const put = async (i: number) => {
      const r = datasetRun(i, from);
      const body = Buffer.from(r.text);
      await c.query(one, [r.device, r.id, r.owner, body.length, sha(body), r.at, body, runWords(i, r.text)]);
    };
    for (const stop of [...[...needles.keys()].sort((x, y) => x - y), RUNS]) {
      for (let start = at; start < stop; start = Math.min(stop, start + BATCH)) {
        await c.query(generated, [start, Math.min(stop, start + BATCH), from]);
        if (Math.floor(Math.min(stop, start + BATCH) / 200_000) > Math.floor(start / 200_000))
          log(`PostgreSQL: ${Math.min(stop, start + BATCH)} runs`);
      }
      if (stop < RUNS) await put(stop);
      at = stop + 1;
    }
    // What SQL wrote is what the upload would have: the body and its words, on a sample.
    for (const i of [0, 1, 37, POOL + 3, RUNS - 1].filter((n) => n < RUNS)) {
      const r = datasetRun(i, from);
      const row = (await c.query('SELECT body, words FROM runs WHERE id = $1', [r.id])).rows[0] as
        { body: Buffer; words: string[] } | undefined;
      if (row?.body.toString() !== r.text) throw new Error(`PostgreSQL: run ${i}'s body differs from the dataset's`);
      const want = (await indexTextOf(row.body))?.split(' ').sort();
      if (JSON.stringify(row.words.slice().sort()) !== JSON.stringify(want))
        throw new Error(`PostgreSQL: run ${i}'s words differ from the upload's`);
    }
    await c.query("SET maintenance_work_mem = '1GB'");
    await c.query(gin.indexdef);
    await c.query('VACUUM ANALYZE');
  });
}

/** The runs a bench row reads: a 30,000-line run, and the compare's pair, stored through the store. */
async function putBenchRuns(store: Store): Promise<void> {
  const put = async (device: string, id: string, text: string) => {
    const body = Buffer.from(text);
    const stored = await store.putRun({
      device,
      id,
      contentType: 'text/plain',
      privacy: 'full',
      size: body.length,
      uploadedAt: Date.now(),
      body,
      sha256: sha(body),
    });
    if (stored !== 'stored') throw new Error(`${device}/${id}: ${stored}`);
  };
  await put('d_upload1', 'lines-30000', linesText(7, Date.UTC(2026, 10, 2), 30_000));
  const [a, b, changed] = changedPair(9, Date.UTC(2026, 10, 3), 2 * 1024 * 1024, 0.01);
  await put('d_upload2', 'compare-a', a);
  await put('d_upload3', 'compare-b', b);
  changedLines = changed;
}
let changedLines = 0;

// ---------------------------------------------------------------------------------------------
// Measuring.

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

/**
 * A GET, asked again once when the kept-alive connection it went out on had just been closed by
 * the server's idle timeout (undici's "other side closed"): a GET may be, and the server never saw it.
 */
async function getOnce(url: string, headers: Record<string, string>): Promise<Response> {
  try {
    return await fetch(url, { headers });
  } catch (err) {
    const code = ((err as Error).cause as { code?: string } | undefined)?.code;
    if (code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, { headers });
  }
}

/** Sequential requests (after three not counted): p50 and p95 in ms, and the last answer. */
async function latencies(url: string, headers: Record<string, string>, n: number) {
  let body = '';
  const times: number[] = [];
  for (let k = 0; k < n + 3; k++) {
    const started = performance.now();
    const res = await getOnce(url, headers);
    body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
    if (k >= 3) times.push(performance.now() - started);
  }
  times.sort((x, y) => x - y);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), body };
}

/** The same searches through the store in this process: p50 in ms, and the runs found. */
async function storeSearch(where: string, subject: string, admin: boolean, word: string, n: number) {
  const store = where.startsWith('postgres') ? await openPostgresStore(where) : openSqliteStore(where);
  try {
    const q = parseTextQuery(word);
    if (!q.ok) throw new Error(q.message);
    const viewer = { subject, admin, groups: [] };
    const times: number[] = [];
    let found = 0;
    for (let k = 0; k < n + 3; k++) {
      const started = performance.now();
      const page = await store.runsVisibleTo(viewer, { limit: 50 }, { text: q.query });
      if (k >= 3) times.push(performance.now() - started);
      found = page.items.length;
    }
    times.sort((x, y) => x - y);
    return { p50: percentile(times, 0.5), found };
  } finally {
    await store.close();
  }
}

/** `work`, or an error after `limit` ms (a baseline that fails to start prints no port and is waited on forever). */
function within<T>(limit: number, message: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), limit);
    }),
  ]);
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

/** The search rows: a word held by 10 runs and one held by every run, through the API and the console. */
async function searchRows(name: string, where: string, server: BenchServer, token: string) {
  const admin = await sessionCookie(SESSION_KEY, 'local:admin', true, where);
  const owner = await sessionCookie(SESSION_KEY, OWNER, false, where);
  const cases: Array<{ who: string; word: string; held: number; path: string; headers: Record<string, string> }> = [
    { who: 'admin', word: NEEDLE, held: 10, path: '/api/v1/runs', headers: { authorization: `Bearer ${token}` } },
    { who: 'admin', word: NEEDLE, held: 10, path: '/runs', headers: { cookie: admin } },
    { who: 'admin', word: COMMON, held: RUNS, path: '/api/v1/runs', headers: { authorization: `Bearer ${token}` } },
    { who: 'admin', word: COMMON, held: RUNS, path: '/runs', headers: { cookie: admin } },
    { who: 'an owner of 1 %', word: OWNER_NEEDLE, held: 10, path: '/runs', headers: { cookie: owner } },
    { who: 'an owner of 1 %', word: COMMON, held: RUNS / 100, path: '/runs', headers: { cookie: owner } },
  ];
  for (const c of cases) {
    const url = `${server.base}${c.path}?text=${encodeURIComponent(c.word)}`;
    const r = await latencies(url, c.headers, SEARCHES);
    // What was found: the API's items; the console's rows (each run's link).
    const found = c.path.startsWith('/api')
      ? ((JSON.parse(r.body) as { items?: unknown[] }).items?.length ?? -1)
      : new Set(r.body.match(/href="\/runs\/d_\w+\/[\w.-]+"/g) ?? []).size;
    const want = Math.min(c.held, 50);
    const rare = c.held === 10;
    const inStore = await storeSearch(
      where,
      c.who === 'admin' ? 'local:admin' : OWNER,
      c.who === 'admin',
      c.word,
      SEARCHES,
    );
    const goal = rare ? 100 : 300;
    add({
      store: name,
      target: `GET ${c.path}?text=${c.word} (${rare ? 'held by 10 runs' : c.held === RUNS ? 'held by every run' : `held by all ${c.held} of the account's runs`}, ${rare ? 'all found' : 'first page'}), ${c.who}`,
      figure: `p50 ${ms(r.p50)}, p95 ${ms(r.p95)}; ${found} found`,
      baseline: `store alone p50 ${ms(inStore.p50)}`,
      ratio: '',
      goal: `p50 ≤ ${goal} ms, ${want} found`,
      met: r.p50 <= goal && found === want && inStore.found === want,
    });
  }
}

/** The index's size against the text it indexes. */
async function sqliteSize(dataDir: string) {
  const db = new DatabaseSync(join(dataDir, 'paddock.db'), { readOnly: true });
  try {
    const index = Number(
      (db.prepare("SELECT sum(pgsize) AS n FROM dbstat WHERE name LIKE 'run_words%'").get() as { n: number }).n,
    );
    const text = Number((db.prepare('SELECT sum(size) AS n FROM runs').get() as { n: number }).n);
    return { index, text, detail: 'the pages of run_words and its shadow tables (dbstat)' };
  } finally {
    db.close();
  }
}
async function postgresSize(url: string) {
  return withClient(url, async (c) => {
    const row = (
      await c.query(`SELECT pg_relation_size('runs_words') AS gin, (SELECT sum(pg_column_size(words)) FROM runs) AS words,
        (SELECT sum(size) FROM runs) AS text`)
    ).rows[0] as { gin: string; words: string; text: string };
    return {
      index: Number(row.gin) + Number(row.words),
      text: Number(row.text),
      detail: `GIN runs_words ${(Number(row.gin) / 2 ** 20).toFixed(0)} MiB + the words column ${(Number(row.words) / 2 ** 20).toFixed(0)} MiB`,
    };
  });
}
function sizeRow(name: string, s: { index: number; text: number; detail: string }) {
  const ratio = s.index / s.text;
  add({
    store: name,
    target: `search index size at ${RUNS} runs (${s.detail})`,
    figure: `${(s.index / 2 ** 20).toFixed(0)} MiB`,
    baseline: `text ${(s.text / 2 ** 20).toFixed(0)} MiB`,
    ratio: `${ratio.toFixed(2)}×`,
    goal: '≤ 1.5× the text',
    met: ratio <= 1.5,
  });
}

/** A 16 MiB text run through the server on a fresh process: stored, found by its last line's word. */
async function largeRow(name: string, server: BenchServer, credential: string, token: string) {
  const body = Buffer.from(largeText(16, 16 * 1024 * 1024, MARKER));
  if (body.length !== 16 * 1024 * 1024) throw new Error(`large run: ${body.length} bytes`);
  const before = rssMiB(server.pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(server.pid));
  }, 20);
  const started = performance.now();
  const res = await fetch(`${server.base}/v1/runs/large-16m`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'text/plain', 'x-privacy-level': 'full' },
    body,
  });
  await res.arrayBuffer();
  const took = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB(server.pid));
  if (res.status >= 300) throw new Error(`16 MiB upload: ${res.status}`);
  const found = await getOnce(`${server.base}/api/v1/runs?text=${MARKER}`, { authorization: `Bearer ${token}` }).then(
    (r) => r.json() as Promise<{ items: Array<{ id: string; match?: { line: number } }> }>,
  );
  const hit = found.items.find((r) => r.id === 'large-16m');
  const lines = body.toString().split('\n').length - 1;
  const ok = found.items.length === 1 && hit !== undefined;
  add({
    store: name,
    target: `PUT a 16 MiB text run (${lines} lines), then GET /api/v1/runs?text=<a word of its last line only>`,
    figure: `stored in ${(took / 1000).toFixed(2)} s; found ${ok ? 'yes' : 'NO'}${hit?.match ? ` (line ${hit.match.line})` : ''}`,
    baseline: `server RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB (VmHWM ${peakRssMiB(server.pid).toFixed(0)})`,
    ratio: '',
    goal: 'indexed whole: found by its last line',
    met: ok && (hit?.match === undefined || hit.match.line === lines),
  });
}

/**
 * A page of the 30,000-line run reads the run's whole body (about 2.5 MiB) to cut its lines: at 50
 * connections a load of a few seconds finishes hardly any request of either side.
 */
const PAGE_CONNECTIONS = 4;

/** The pages of a 30,000-line run against the page baseline (the same query and bytes). */
async function pageRows(name: string, where: string, dataDir: string, server: BenchServer) {
  const admin = await sessionCookie(SESSION_KEY, 'local:admin', true, where);
  const rows: Row[] = [];
  const { compareTo } = comparer({
    dir: tmpdir(),
    base: server.base,
    pid: server.pid,
    duration: DURATION,
    rows,
    log,
    selected: () => true,
    connections: PAGE_CONNECTIONS,
  });
  // On PostgreSQL the baseline finds the seal key where `paddock serve` wrote it: data/seal.key
  // under the directory it runs in (bench/text_page_baseline.ts).
  const baseline = () =>
    within(
      30_000,
      'the page baseline did not start',
      startBaselineServer(
        new URL('./text_page_baseline.ts', import.meta.url).pathname,
        [where, SESSION_KEY.toString('base64')],
        { env: { BENCH_BASELINE_CWD: join(dataDir, '..') } },
      ),
    );
  for (const [what, line] of [
    ['first', 1],
    ['middle', 15_000],
    ['last', 30_000],
  ] as const) {
    const path = `/runs/d_upload1/lines-30000?line=${line}`;
    try {
      await compareTo(`${what} page`, path, admin, { minRatio: 0.8 }, baseline);
      const r = rows.at(-1);
      if (!r) continue;
      add({
        store: name,
        target: `GET /runs/{device}/{id}?line=${line} of a 30,000-line run (${what} page), admin, ${PAGE_CONNECTIONS} connections`,
        figure: `${r.requestsPerSecond.toFixed(0)} pages/s, p50 ${r.p50} ms`,
        baseline: `${r.baselineRps?.toFixed(0)} pages/s (CPU ratio ${r.cpuRatio?.toFixed(2)})`,
        ratio: r.ratio?.toFixed(2) ?? '',
        goal: '≥ 0.8 of the page baseline (same bytes)',
        met: r.met,
      });
    } catch (err) {
      add({
        store: name,
        target: `GET /runs/{device}/{id}?line=${line} (${what} page)`,
        figure: `not measured: ${(err as Error).message}`,
        baseline: '',
        ratio: '',
        goal: '≥ 0.8 of the page baseline',
        met: false,
      });
    }
  }
}

/** The compare of two 2 MiB runs with 1 % of lines changed, through the API: p50 and the server's CPU. */
async function compareRow(name: string, server: BenchServer, token: string) {
  const url = `${server.base}/api/v1/runs/d_upload2/compare-a/compare?with=d_upload3/compare-b`;
  const headers = { authorization: `Bearer ${token}` };
  await latencies(url, headers, 1);
  const cpu = cpuMicros(server.pid);
  const r = await latencies(url, headers, COMPARES);
  const perCompare = (cpuMicros(server.pid) - cpu) / (COMPARES + 3) / 1000;
  const removed = r.body.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  const added = r.body.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const ok = removed === changedLines && added === changedLines;
  add({
    store: name,
    target: `GET /api/v1/runs/{a}/compare?with={b}: two 2 MiB text runs, ${changedLines} lines (1 %) changed, sequential`,
    figure: `p50 ${ms(r.p50)}, p95 ${ms(r.p95)}; ${removed} −, ${added} + lines`,
    baseline: `server CPU ${perCompare.toFixed(0)} ms a compare`,
    ratio: '',
    goal: `the diff holds the ${changedLines} changes`,
    met: ok,
  });
}

/** 1 KiB text runs (a pool of 512 different log texts) from 50 devices at once, each a new run id. */
function textUploads(
  name: string,
  server: BenchServer,
  credentials: string[],
  prefix: string,
  duration = DURATION,
): Promise<LoadResult> {
  const bodies = Array.from({ length: 512 }, (_, k) => Buffer.from(runText(9_000_000 + k, Date.now(), 1024)));
  let sequence = 0;
  return load(name, {
    connections: 50,
    duration,
    pid: server.pid,
    url: server.base,
    requests: [
      {
        method: 'PUT',
        setupRequest: (req, ctx: object) => {
          const context = ctx as { credential?: string };
          context.credential ??= credentials[sequence % credentials.length];
          const n = sequence++;
          return {
            ...req,
            path: `/v1/runs/${prefix}-${n}`,
            headers: {
              authorization: `Bearer ${String(context.credential)}`,
              'x-privacy-level': 'full',
              'content-type': 'text/plain',
            },
            body: bodies[n % bodies.length],
          };
        },
      },
    ],
  });
}

/**
 * Uploads with the index against the same server with its store opened without it
 * (bench/text_no_words.ts), alternated, each on a fresh process; the same bodies and load.
 */
async function uploadRows(
  name: string,
  env: Record<string, string>,
  credentials: string[],
  unindexed: () => Promise<number>,
) {
  const hook = new URL('./text_no_words.ts', import.meta.url).pathname;
  const rates = { with: [] as LoadResult[], without: [] as LoadResult[] };
  for (let round = 0; round < ROUNDS; round++)
    for (const side of ['without', 'with'] as const) {
      const server = await startPaddock(env, side === 'with' ? {} : { flags: [...SERVER_FLAGS, '--import', hook] });
      try {
        // A second not counted: both sides warm.
        await textUploads('warm-up', server, credentials, `warm-${side}-${round}`, 1);
        rates[side].push(await textUploads(side, server, credentials, `up-${side}-${round}`));
      } finally {
        await server.stop();
      }
    }
  const rate = (rs: LoadResult[]) => rs.reduce((s, r) => s + r.requestsPerSecond, 0) / rs.length;
  const cpu = (rs: LoadResult[]) => rs.reduce((s, r) => s + r.cpuMicrosPerRequest, 0) / rs.length;
  const refused = [...rates.with, ...rates.without].reduce((s, r) => s + r.non2xx + r.errors, 0);
  // The baseline's runs must be without words, or the baseline measured the index too.
  const unwordedRuns = await unindexed();
  const ratio = rate(rates.with) / rate(rates.without);
  add({
    store: name,
    target: `PUT /v1/runs/{id} 1 KiB log text, 50 devices, through paddock serve (${ROUNDS}×${DURATION} s each, alternated)`,
    figure: `${rate(rates.with).toFixed(0)}/s, p50 ${rates.with.at(-1)?.p50} ms, CPU ${cpu(rates.with).toFixed(0)} µs`,
    baseline: `${rate(rates.without).toFixed(0)}/s, CPU ${cpu(rates.without).toFixed(0)} µs (store without the index; ${unwordedRuns} runs stored without words)`,
    ratio: ratio.toFixed(2),
    goal: '≥ 0.8 of the rate without the index, none refused',
    met: ratio >= 0.8 && refused === 0 && unwordedRuns > 0,
  });
}

// ---------------------------------------------------------------------------------------------

async function benchStore(name: 'SQLite' | 'PostgreSQL', dir: string) {
  const from = Math.floor((Date.now() - 86_400_000 - RUNS * RUN_EVERY_MS) / 1000) * 1000;
  let where: string;
  let drop = async () => {};
  // The data directory is `data` under a directory of the store's own (see pageRows).
  const dataDir = join(dir, name, 'data');
  if (name === 'PostgreSQL') {
    const database = await benchDatabase();
    where = database.url;
    drop = database.drop;
  } else where = dataDir;
  try {
    const started = performance.now();
    const open = () => (name === 'PostgreSQL' ? openPostgresStore(where) : Promise.resolve(openSqliteStore(where)));
    let store = await open();
    const credentials = await enrollUploaders(store);
    const token = await adminApiToken(store);
    await store.close();
    log(`${name}: schema and uploaders in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    if (name === 'PostgreSQL') await loadPostgres(where, from);
    else await loadSqlite(where, from);
    log(`${name}: runs inserted at ${((performance.now() - started) / 1000).toFixed(0)} s`);
    store = await open();
    await putBenchRuns(store);
    await store.close();
    const seconds = (performance.now() - started) / 1000;
    log(`${name}: ${RUNS} runs loaded in ${seconds.toFixed(0)} s`);
    notes.push(`${name}: ${RUNS} runs loaded in ${seconds.toFixed(0)} s.`);
    if (measures('size')) sizeRow(name, name === 'PostgreSQL' ? await postgresSize(where) : await sqliteSize(where));

    const env = {
      ...(name === 'PostgreSQL' ? { PADDOCK_DATABASE_URL: where } : {}),
      PADDOCK_DATA_DIR: dataDir,
      PADDOCK_SESSION_KEYS: SESSION_KEY.toString('base64'),
      PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
    };
    const server = await startPaddock(env);
    try {
      if (measures('large')) await largeRow(name, server, credentials[0] ?? '', token);
      if (measures('search')) await searchRows(name, where, server, token);
      if (measures('compare')) await compareRow(name, server, token);
      if (measures('pages')) await pageRows(name, where, dataDir, server);
    } finally {
      await server.stop();
    }
    if (measures('uploads'))
      await uploadRows(name, env, credentials, async () => {
        if (name === 'PostgreSQL')
          return withClient(where, async (c) =>
            Number(
              (await c.query("SELECT count(*) AS n FROM runs WHERE id LIKE 'up-without-%' AND words IS NULL")).rows[0]
                .n,
            ),
          );
        const db = new DatabaseSync(join(dataDir, 'paddock.db'), { readOnly: true });
        try {
          return Number(
            (
              db
                .prepare(
                  "SELECT count(*) AS n FROM runs WHERE id LIKE 'up-without-%' AND seq NOT IN (SELECT rowid FROM run_words WHERE run_words MATCH 'info')",
                )
                .get() as { n: number }
            ).n,
          );
        } finally {
          db.close();
        }
      });
  } finally {
    await drop();
  }
}

await checkWords();
const dir = await mkdtemp(join(tmpdir(), 'paddock-bench-text-'));
const started = Date.now();
try {
  if (!values['no-sqlite']) await benchStore('SQLite', dir);
  if (!values['no-postgres']) await benchStore('PostgreSQL', dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);

const table = [
  '| store | target | figure | baseline (same run) | ratio | goal | met |',
  '|---|---|---|---|---:|---|---|',
  ...results.map(
    (r) =>
      `| ${r.store} | ${r.target} | ${r.figure} | ${r.baseline} | ${r.ratio || '–'} | ${r.goal} | ${r.met === undefined ? '–' : r.met ? 'yes' : '**no**'} |`,
  ),
];
process.stdout.write(`${table.join('\n')}\n`);
if (!quick && values.runs === undefined && !values['no-postgres'] && !values['no-sqlite'] && values.only === undefined)
  await writeSection(
    [
      '## Issue 44: reading, searching and comparing runs',
      '',
      `Run with \`node bench/run_text.ts\` on ${new Date().toISOString().slice(0, 10)} (${((Date.now() - started) / 1000).toFixed(0)} s).`,
      '',
      ...notes.map((n) => `- ${n}`),
      '',
      ...table,
      '',
    ].join('\n'),
  );
