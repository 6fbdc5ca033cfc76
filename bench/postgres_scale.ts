/**
 * PostgreSQL at 10,000,000 runs and 1,000,000 devices (issue 24, item 6): every list's first page
 * and 100th page against their time at a tenth of that size, on one database that grows.
 *
 * A database of its own on the local server (bench/postgres.ts benchDatabase, dropped at the end)
 * gets its schema from the store's migrations; the rows are streamed in with COPY … FROM STDIN
 * through `psql` (docs/decisions.md), in the shape of bench/postgres.ts fill(): devices owned by
 * the accounts in turn with five labels each, every 50th revoked, 1 KiB runs one every
 * RUN_EVERY_MS over the devices in turn with the privacy levels taking turns and the level check's
 * findings set (so no backfill runs), and an audit trail of a tenth as many records as runs, as
 * bench/run.ts writes it. The triggers stay on, so the dashboard's counters are kept as uploads
 * keep them, and are checked exact against the tables after each stage.
 *
 * Stage 1 loads a tenth of the devices and runs (100,000 and 1,000,000: the bench's standard size)
 * and measures; stage 2 grows the same database to the full size with newer rows and measures
 * again. After each load the counters are compacted (see the comment there), then VACUUM ANALYZE.
 * A real `paddock serve` answers, one client, one request at a time: the median and p95 of 30
 * requests (after 3 unmeasured) of each list's first page and of its 100th page (99 "older" links
 * followed; a list with fewer pages at stage 1 gives its last full page, and stage 2 measures the
 * same page number). Beside them: the dashboard's counts, retention sweep batches, and EXPLAIN
 * (ANALYZE, BUFFERS) of the name search, which must read the trigram index at the full size.
 *
 *   node bench/postgres_scale.ts [--runs 10000000] [--devices 1000000] [--accounts 10000] [--requests 30]
 *
 * or `npm run bench -- --scale`. The full size took 18 minutes on two cores (COPY about 12,000 runs
 * a second) and 23 GiB of disk. Stages measured one after the other meet whatever else the machine
 * is doing at that moment; to compare in turns instead, keep two databases and measure both:
 *
 *   node bench/postgres_scale.ts --runs 1000000 --devices 100000 --accounts 2000 --single --keep --save small.json
 *   node bench/postgres_scale.ts --keep --save large.json
 *   node bench/postgres_scale.ts --small small.json --large large.json --rounds 5
 *
 * (then drop the two databases, whose names the files hold). When the larger size is the default,
 * the section "PostgreSQL at 10,000,000 runs" of bench/results.md is written; otherwise the table
 * is only printed.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { PAGE_SIZE } from '../src/domain/paging.ts';
import { RETENTION_BATCH, RETENTION_BATCHES } from '../src/domain/retention.ts';
import { filteredDevices } from '../src/store/devices.ts';
import { SWEEP_BATCH } from '../src/sweep/sweeper.ts';
import { pgSearchDevices } from '../src/store/postgres/device_search.ts';
import { openPostgresStore } from '../src/store/postgres/store.ts';
import { numbered, type Sql } from '../src/store/sql.ts';
import { olderPage } from './compare.ts';
import { adminApiToken, benchLabels, COMMON_LABEL, LEVELS, RARE_LABEL, RUN_EVERY_MS } from './dataset.ts';
import { benchDatabase, countsTimes, withClient } from './postgres.ts';
import { writeSection } from './report.ts';
import { sessionCookie, startPaddock } from './server.ts';

const DAY_MS = 86_400_000;
/** The audit trail's records, one a minute (as bench/run.ts writes them). */
const AUDIT_EVERY_MS = 60_000;
/** The account whose lists are measured as an owner: its devices all carry RARE_LABEL (rack=r7). */
const OWNER = 'oidc:account-7';
const SEARCH = 'device 123';
/** Rows per COPY statement: each is a transaction, and the statement triggers' transition tables hold its rows. */
const COPY_BATCH = 100_000;
/** 1 KiB of text that looks like a run log, as bench/postgres.ts fill() stores. */
const BODY_LINE = 't=7 temperature=21.7 status=<ok> & note="bench"\n';
const BODY = Buffer.from(BODY_LINE.repeat(Math.ceil(1000 / BODY_LINE.length)).slice(0, 1000));

export interface ScaleOptions {
  runs: number;
  devices: number;
  accounts: number;
  /** Measured requests per page (after 3 unmeasured). */
  requests: number;
  log: (line: string) => void;
  /** Keep the database at the end (its URL is logged). */
  keep?: boolean | undefined;
  /** A file the run is written to after each stage, for compareRuns. */
  save?: string | undefined;
  /** Load the full size in one stage (a database for compareRuns) rather than a tenth first. */
  single?: boolean | undefined;
}

interface ScaleResult {
  stages: StageResult[];
  table: string;
  /** How the figures were made, for bench/results.md. */
  how: string;
}

/** One list's page at one stage. */
interface PageTime {
  list: string;
  /** 1 for the first page, else the page followed to. */
  page: number;
  median: number;
  p95: number;
}

interface StageResult {
  devices: number;
  runs: number;
  audit: number;
  loadSeconds: number;
  vacuumSeconds: number;
  pages: PageTime[];
  notes: string[];
  /** What the bench asserts and found wrong; the run fails after its results are written. */
  failures: string[];
}

export async function scaleBench(opts: ScaleOptions): Promise<ScaleResult> {
  const { log } = opts;
  const database = await benchDatabase();
  const url = database.url;
  try {
    await (await openPostgresStore(url)).close();
    const final = { devices: opts.devices, runs: opts.runs, audit: Math.floor(opts.runs / 10) };
    const first = { devices: final.devices / 10, runs: final.runs / 10, audit: final.audit / 10 };
    // Times are laid out for the final size, newest a day ago, so the rows stage 2 adds are newer
    // than stage 1's and sequence numbers follow upload times, as they do when devices upload.
    const run: SavedRun = { url, now: Date.now() - DAY_MS, accounts: opts.accounts, final, stages: [] };
    const data = new Dataset(run, log);
    for (const [n, size] of (opts.single ? [final] : [first, final]).entries()) {
      log(`stage ${n + 1}: loading to ${size.devices} devices, ${size.runs} runs, ${size.audit} audit records`);
      const started = Date.now();
      await data.grow(size);
      const loadSeconds = (Date.now() - started) / 1000;
      log(`stage ${n + 1}: loaded in ${loadSeconds.toFixed(0)} s; VACUUM ANALYZE`);
      const vacuumStarted = Date.now();
      await withClient(url, async (c) => {
        await c.query("SET maintenance_work_mem = '1GB'");
        // COPY fires the counters' triggers as uploads do, but inside transactions of 100,000 rows,
        // so every owner's and device's counter row is rewritten many times before any version can
        // be pruned: counts grew to 27,000 pages for 33,000 rows. Uploads commit in small groups
        // whose updates are pruned as they go, so the counters are rewritten compact, as a
        // database grown by uploads has them.
        await c.query('VACUUM (FULL) counts, device_bytes');
        await c.query('VACUUM ANALYZE');
      });
      const vacuumSeconds = (Date.now() - vacuumStarted) / 1000;
      log(`stage ${n + 1}: VACUUM ANALYZE in ${vacuumSeconds.toFixed(0)} s`);
      run.stages.push({
        ...size,
        loadSeconds,
        vacuumSeconds,
        ...(await measureStage(data, size, run.stages[0], opts)),
      });
      if (opts.save) await writeFile(opts.save, JSON.stringify(run));
    }
    const how = `One database grown in two stages with COPY, ${opts.accounts.toLocaleString('en-US')} accounts owning the devices in turn, measured after each stage; a list shorter than 100 pages at stage 1 is measured at its last full page there, and at the same page at stage 2.`;
    return { stages: run.stages, table: tableOf(run.stages), how };
  } finally {
    if (opts.keep) log(`database kept: ${url}`);
    else await database.drop();
  }
}

/**
 * Two databases kept by earlier runs (--keep --save), a small one and a large one, measured in
 * turns: the small one's pages, then the large one's, `rounds` times, each figure the median of its
 * rounds, so that other work on the machine weighs on both alike. The large one follows each list
 * to the page the small one reached. Then each one's counters, sweep batches and search plan. The
 * loads are not repeated: after a change to the store, both sides are measured with it.
 */
export async function compareRuns(
  files: { small: string; large: string },
  rounds: number,
  opts: ScaleOptions,
): Promise<ScaleResult> {
  const read = async (f: string) => JSON.parse(await readFile(f, 'utf8')) as SavedRun;
  const runs = [await read(files.small), await read(files.large)];
  const data = runs.map((run) => new Dataset(run, opts.log));
  for (const d of data) await withClient(d.url, (c) => c.query('SELECT pg_stat_reset()'));
  const measured: PageTime[][][] = [[], []];
  let depths: Map<string, number> | undefined;
  for (let round = 0; round < rounds; round++)
    for (const [n, d] of data.entries()) {
      opts.log(`round ${round + 1}: ${runs[n]?.final.runs} runs`);
      const pages = await measurePages(d.url, d.day, opts, depths, opts.log);
      depths ??= depthsOf(pages);
      measured[n]?.push(pages);
    }
  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
  const stages: StageResult[] = [];
  for (const [n, d] of data.entries()) {
    const [first = [], ...others] = measured[n] ?? [];
    const all = [first, ...others];
    const pages = first.map((p) => {
      const same = all.flatMap((r) => r.filter((q) => q.list === p.list && q.page === p.page));
      return { ...p, median: median(same.map((q) => q.median)), p95: median(same.map((q) => q.p95)) };
    });
    const run = runs[n] as SavedRun;
    const last = run.stages.at(-1) as StageResult;
    stages.push({ ...last, pages, ...(await stageNotes(d, run.final, n === 1, opts)) });
  }
  const [small, large] = runs as [SavedRun, SavedRun];
  const how = `Two databases made by COPY and kept (\`--keep --save\`), measured in turns, ${rounds} rounds, each figure the median of its rounds: ${small.final.devices.toLocaleString('en-US')} devices of ${small.accounts.toLocaleString('en-US')} accounts, and ${large.final.devices.toLocaleString('en-US')} devices of ${large.accounts.toLocaleString('en-US')} accounts. A list shorter than 100 pages in the smaller is measured at its last full page there, and at the same page in the larger. Load times are those of each database's last stage.`;
  return { stages, table: tableOf(stages), how };
}

/** The page each list was followed to, for the next stage or database to follow it as far. */
function depthsOf(pages: PageTime[]): Map<string, number> {
  return new Map(pages.filter((p) => p.page > 1).map((p) => [p.list, p.page]));
}

/** A run as --save writes it: enough to measure its database again. */
interface SavedRun {
  url: string;
  /** The newest run's and audit record's time (ms). */
  now: number;
  accounts: number;
  final: { devices: number; runs: number; audit: number };
  stages: StageResult[];
}

/** A stage's measurements: its pages, then stageNotes. A later stage follows each list to the page `first` reached. */
async function measureStage(
  data: Dataset,
  size: { runs: number; audit: number },
  first: StageResult | undefined,
  opts: ScaleOptions,
): Promise<{ pages: PageTime[]; notes: string[]; failures: string[] }> {
  const { url } = data;
  await withClient(url, (c) => c.query('SELECT pg_stat_reset()'));
  const pages = await measurePages(url, data.day, opts, first && depthsOf(first.pages), opts.log);
  return { pages, ...(await stageNotes(data, size, first !== undefined, opts)) };
}

/**
 * What a stage reads or changes beside its pages: the cache hit ratio since the statistics were
 * reset and the sizes, the counters and a sweep batch, the search's plan (which must read the
 * trigram index at the final size), and the counters checked against the tables.
 */
async function stageNotes(
  data: Dataset,
  size: { runs: number; audit: number },
  /** The larger of two sizes compared, where the search must read its index. */
  large: boolean,
  opts: ScaleOptions,
): Promise<{ notes: string[]; failures: string[] }> {
  const { url } = data;
  const failures: string[] = [];
  const check = ({ note, failure }: { note: string; failure?: string | undefined }) => {
    if (failure) failures.push(failure);
    return note;
  };
  const notes = [
    ...(await cacheAndSizes(url)),
    ...(await dashboardAndSweep(url, data, size, opts.log)),
    check(await searchPlan(url, large)),
    check(await checkCounters(url)),
  ];
  for (const note of notes) opts.log(`${size.runs} runs: ${note}`);
  for (const failure of failures) opts.log(`${size.runs} runs: FAILED: ${failure}`);
  return { notes, failures };
}

/** The rows of the dataset, made up to a size by COPY (only what is not there yet). */
class Dataset {
  readonly url: string;
  readonly runsFrom: number;
  readonly auditFrom: number;
  /** A day in the middle of the first stage's runs, for the day-range filter at every stage. */
  readonly day: string;
  #have = { devices: 0, runs: 0, audit: 0 };
  readonly #accounts: number;
  readonly #now: number;
  readonly #log: (line: string) => void;

  constructor(run: SavedRun, log: (line: string) => void) {
    this.url = run.url;
    this.#accounts = run.accounts;
    this.#now = run.now;
    this.#log = log;
    this.runsFrom = run.now - run.final.runs * RUN_EVERY_MS;
    this.auditFrom = run.now - run.final.audit * AUDIT_EVERY_MS;
    this.day = new Date(this.runsFrom + (run.final.runs / 20) * RUN_EVERY_MS).toISOString().slice(0, 10);
  }

  async grow(size: { devices: number; runs: number; audit: number }): Promise<void> {
    const { devices } = size;
    const accounts = this.#accounts;
    const now = this.#now;
    const from = this.#have;
    // seq is given, one more than the device's number (the database is new), so the labels can
    // name their device; the sequence is moved past it afterwards.
    await this.#copy(
      'devices',
      'seq, id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at, revoked_at',
      {
        from: from.devices,
        to: devices,
        line: (i) =>
          `${i + 1}\td_bench${i}\tbench device ${i}\tbench device ${i}\toidc:account-${i % accounts}\tbench-cred-${i}\t${now + i}\t${now + i}\t${i % 50 === 49 ? now : '\\N'}\n`,
      },
    );
    await withClient(this.url, (c) =>
      c.query("SELECT setval(pg_get_serial_sequence('devices', 'seq'), (SELECT max(seq) FROM devices))"),
    );
    await this.#copy('device_labels', 'device_seq, key, value', {
      from: from.devices,
      to: devices,
      per: 5,
      line: (i) =>
        Object.entries(benchLabels(i))
          .map(([key, value]) => `${i + 1}\t${key}\t${value}\n`)
          .join(''),
    });
    // Checked by the level check as an upload through the server is (findings of nothing, none for
    // full runs), so no backfill runs under the measured load.
    const body = `\\\\x${BODY.toString('hex')}`;
    await this.#copy('runs', 'device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, findings', {
      from: from.runs,
      to: size.runs,
      line: (i) =>
        `d_bench${i % devices}\trun-${i}\toidc:account-${(i % devices) % accounts}\ttext/plain\t${LEVELS[i % 3]}\t${BODY.length}\tx\t${this.runsFrom + i * RUN_EVERY_MS}\t${body}\t${i % 3 === 0 ? '\\N' : '{}'}\n`,
    });
    // Three events in turn, by the accounts in turn, so each filter selects a real share.
    await this.#copy('audit', 'at, event, account, client, device, run, detail', {
      from: from.audit,
      to: size.audit,
      line: (i) => {
        const event = (['run.deleted', 'device.revoked', 'device.renamed'] as const)[i % 3];
        const run = event === 'run.deleted' ? `run-${i}` : '\\N';
        const detail = event === 'device.renamed' ? `name=bench device ${i} <renamed>` : '';
        return `${this.auditFrom + i * AUDIT_EVERY_MS}\t${event}\toidc:account-${i % accounts}\t127.0.0.1\td_bench${i % devices}\t${run}\t${detail}\n`;
      },
    });
    this.#have = { ...size };
  }

  /**
   * Rows `from` to `to` (exclusive) into a table by COPY … FROM STDIN, in statements of COPY_BATCH
   * rows, through one `psql` reading the statements and their rows from its standard input, written
   * as fast as it reads them. Its "COPY n" answers give the progress.
   */
  async #copy(
    table: string,
    columns: string,
    rows: { from: number; to: number; per?: number; line: (i: number) => string },
  ) {
    if (rows.to <= rows.from) return;
    const started = Date.now();
    const psql = spawn('psql', ['-X', '-v', 'ON_ERROR_STOP=1', this.url], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    psql.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const total = (rows.to - rows.from) * (rows.per ?? 1);
    let done = 0;
    let lastLog = 0;
    psql.stdout.on('data', (d: Buffer) => {
      for (const m of d.toString().matchAll(/^COPY (\d+)$/gm)) done += Number(m[1]);
      if (Date.now() - lastLog > 30_000 || done === total) {
        lastLog = Date.now();
        const seconds = (Date.now() - started) / 1000;
        this.#log(`${table}: ${done}/${total} rows in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(0)}/s)`);
      }
    });
    const exited = once(psql, 'exit');
    // A psql that stops early closes its input; its exit status and output then say why.
    psql.stdin.on('error', () => {});
    const write = async (text: string) => {
      if (!psql.stdin.write(text)) await Promise.race([once(psql.stdin, 'drain'), exited]);
    };
    // A bench load: the rows are made again if the server stops, so commits need not wait for the disk.
    await write('SET synchronous_commit = off;\n');
    for (let start = rows.from; start < rows.to && psql.exitCode === null; start += COPY_BATCH) {
      await write(`COPY ${table} (${columns}) FROM STDIN;\n`);
      const end = Math.min(start + COPY_BATCH, rows.to);
      for (let i = start; i < end && psql.exitCode === null;) {
        let chunk = '';
        for (const stop = Math.min(i + 500, end); i < stop; i++) chunk += rows.line(i);
        await write(chunk);
      }
      await write('\\.\n');
    }
    psql.stdin.end();
    const [code] = await exited;
    if (code !== 0 || done !== total)
      throw new Error(`COPY ${table}: psql exited ${code}, ${done}/${total} rows: ${stderr}`);
  }
}

/** The lists measured: the console's for an administrator and an owner, and the API's with an admin token. */
function lists(day: string): Array<{ path: string; who: 'admin' | 'owner' | 'admin token' }> {
  const rare = `label=${encodeURIComponent(RARE_LABEL)}`;
  const common = `label=${encodeURIComponent(COMMON_LABEL)}`;
  const range = `since=${day}&until=${day}`;
  return [
    ...(['admin', 'owner'] as const).flatMap((who) => [
      { path: '/devices', who },
      { path: `/devices?${rare}`, who },
      { path: '/devices?q=device+123&sort=name', who },
      { path: '/devices?status=active&sort=last_seen', who },
      { path: '/runs', who },
      { path: '/runs?privacy=minimal', who },
      { path: `/runs?${range}`, who },
    ]),
    { path: `/devices?${common}`, who: 'admin' },
    { path: '/audit', who: 'admin' },
    { path: '/audit?event=run.deleted', who: 'admin' },
    { path: `/audit?actor=${encodeURIComponent(OWNER)}`, who: 'admin' },
    { path: '/api/v1/devices', who: 'admin token' },
    { path: `/api/v1/devices?${rare}`, who: 'admin token' },
    { path: '/api/v1/runs', who: 'admin token' },
    { path: '/api/v1/runs?privacy=minimal', who: 'admin token' },
  ];
}

/**
 * Each list's first page and its later page through a real `paddock serve`, one request at a
 * time. `depths` (from stage 1) fixes the page each list follows to; without it, up to the 100th.
 */
async function measurePages(
  url: string,
  day: string,
  opts: ScaleOptions,
  depths: Map<string, number> | undefined,
  log: (line: string) => void,
): Promise<PageTime[]> {
  const store = await openPostgresStore(url);
  const token = await adminApiToken(store);
  await store.close();
  const key = randomBytes(32);
  const server = await startPaddock({
    PADDOCK_DATABASE_URL: url,
    PADDOCK_SESSION_KEYS: key.toString('base64'),
    PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
    // The trail spans about two years at full size; the default 365 days would prune half of it.
    PADDOCK_AUDIT_RETENTION: '3650d',
  });
  const auth = {
    admin: { cookie: await sessionCookie(key, 'local:admin', true, url) },
    owner: { cookie: await sessionCookie(key, OWNER, false, url) },
    'admin token': { authorization: `Bearer ${token}` },
  };
  const get = async (path: string, headers: Record<string, string>) => {
    const started = process.hrtime.bigint();
    const res = await fetch(`${server.base}${path}`, { headers });
    const body = await res.text();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    return { body, ms };
  };
  const time = async (path: string, headers: Record<string, string>) => {
    for (let i = 0; i < 3; i++) await get(path, headers);
    const times: number[] = [];
    for (let i = 0; i < opts.requests; i++) times.push((await get(path, headers)).ms);
    times.sort((a, b) => a - b);
    return {
      median: times[Math.floor((times.length - 1) / 2)] ?? 0,
      p95: times[Math.ceil(times.length * 0.95) - 1] ?? 0,
    };
  };
  const pages: PageTime[] = [];
  try {
    for (const { path, who } of lists(day)) {
      // Named without the day of the range filter, which depends on when the database was made.
      const list = `GET ${path.replaceAll(day, '{day}')}, ${who}`;
      const headers = auth[who];
      pages.push({ list, page: 1, ...(await time(path, headers)) });
      // The page `depth` - 1 "older" links away, or the last page on the way followed by another
      // (a list's last page may hold a few rows, which would flatter the figure).
      const depth = depths ? (depths.get(list) ?? 1) : 100;
      let at = path;
      let body = (await get(path, headers)).body;
      let page = 1;
      while (page < depth) {
        const next = olderPage(at, body);
        if (next === undefined) break;
        const nextBody = (await get(next, headers)).body;
        if (olderPage(next, nextBody) === undefined) break;
        [at, body, page] = [next, nextBody, page + 1];
      }
      if (page > 1) pages.push({ list, page, ...(await time(at, headers)) });
      const [firstPage, later] = pages.filter((p) => p.list === list);
      log(
        `${list}: first page ${firstPage?.median.toFixed(1)} ms (p95 ${firstPage?.p95.toFixed(1)})${later ? `, page ${later.page} ${later.median.toFixed(1)} ms (p95 ${later.p95.toFixed(1)})` : ', one page'}`,
      );
    }
  } finally {
    await server.stop();
  }
  return pages;
}

/** The cache hit ratio of the measured requests (statistics reset before them), and the sizes of what they read. */
async function cacheAndSizes(url: string): Promise<string[]> {
  return withClient(url, async (c) => {
    const { rows: hit } = await c.query<{ ratio: number | null }>(
      'SELECT blks_hit::float / nullif(blks_hit + blks_read, 0) AS ratio FROM pg_stat_database WHERE datname = current_database()',
    );
    const { rows: sizes } = await c.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') AND pg_relation_size(c.oid) > 16 * 1024 * 1024
       ORDER BY pg_relation_size(c.oid) DESC`,
    );
    const { rows: total } = await c.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
    const gib = (b: string | number) => `${(Number(b) / 2 ** 30).toFixed(2)} GiB`;
    return [
      `buffer cache hit ratio of the measured requests: ${((hit[0]?.ratio ?? 0) * 100).toFixed(2)} %`,
      `database ${gib(total[0]?.bytes ?? 0)}; relations over 16 MiB: ${sizes.map((s) => `${s.name} ${gib(s.bytes)}`).join(', ')}`,
    ];
  });
}

/**
 * The dashboard's counts (counters kept by triggers), its chart of the last 14 days (ending at the
 * newest run), what the retention section counts as due, three batches of the retention sweep
 * with every run expired (each a bounded walk of the level's index, whatever the table's size)
 * and one batch of the audit trail's prune with every record expired. They delete the 1,500 oldest
 * minimal runs and the 500 oldest records; the lists measured before are newest first.
 */
async function dashboardAndSweep(
  url: string,
  data: Dataset,
  { runs, audit }: { runs: number; audit: number },
  log: (line: string) => void,
) {
  const counts = await countsTimes(url, OWNER);
  const store = await openPostgresStore(url);
  const ms = async <T>(work: () => Promise<T>) => {
    const started = process.hrtime.bigint();
    const result = await work();
    return { result, ms: Number(process.hrtime.bigint() - started) / 1e6 };
  };
  try {
    const newest = data.runsFrom + runs * RUN_EVERY_MS;
    const admin = { subject: 'local:admin', admin: true };
    await store.uploadsPerDay(admin, 14, newest);
    const chart = await ms(() => store.uploadsPerDay(admin, 14, newest));
    // The dashboard's chart by level and its fleet counts (store/dashboard.ts), uncached, as a page view every few seconds reads them.
    await store.uploadsByLevel(admin, 14, newest);
    const byLevel = await ms(() => store.uploadsByLevel(admin, 14, newest));
    const day = 86_400_000;
    const at = { onlineSince: newest - 5 * 60_000, daySince: newest - day, staleBefore: newest - 30 * day };
    const fleet = await ms(() => store.fleetCounts(admin, at));
    const due = await ms(() => store.dueForDeletion('minimal', newest, RETENTION_BATCH * RETENTION_BATCHES));
    const batches = [];
    for (let i = 0; i < 3; i++)
      batches.push(await ms(() => store.deleteExpiredRuns('minimal', newest, RETENTION_BATCH)));
    log(`sweep batches: ${batches.map((b) => `${b.result.runs} runs in ${b.ms.toFixed(1)} ms`).join(', ')}`);
    const prune = await ms(() => store.pruneAudit(data.auditFrom + audit * AUDIT_EVERY_MS, SWEEP_BATCH));
    return [
      `dashboard counts ${counts.admin.toFixed(2)} ms for an admin, ${counts.owner.toFixed(2)} ms for an owner (one \`count(*)\` over the runs: ${counts.countAll.toFixed(0)} ms); the 14-day chart ${chart.ms.toFixed(1)} ms (${chart.result.reduce((a, b) => a + b, 0)} runs), by level ${byLevel.ms.toFixed(1)} ms; the fleet counts (online, seen today, stale, open collections, flagged runs) ${fleet.ms.toFixed(1)} ms; the retention section's count of what is due ${due.ms.toFixed(1)} ms (${due.result.runs} runs, its bound)`,
      `retention sweep, every run expired: batches of ${batches.map((b) => `${b.result.runs} runs (${(b.result.bytes / 1024).toFixed(0)} KiB) in ${b.ms.toFixed(1)} ms`).join(', ')}; the audit trail's prune, every record expired: a batch of ${prune.result} records in ${prune.ms.toFixed(1)} ms`,
    ];
  } finally {
    await store.close();
  }
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the name search as the server runs it: a prepared statement,
 * executed five times first so that the plan cache has made its choice between the custom and the
 * generic plan. At the final size it must read the trigram index devices_search.
 */
async function searchPlan(url: string, assertIndex: boolean): Promise<{ note: string; failure?: string }> {
  const { sql, params } = filteredDevices(
    { searchDevices: pgSearchDevices } as Sql,
    { subject: 'local:admin', admin: true },
    { limit: PAGE_SIZE },
    { q: SEARCH, sort: 'name', staleBefore: 0 },
  );
  return withClient(url, async (c: pg.Client) => {
    await c.query(`PREPARE search AS ${numbered(sql)}`);
    const execute = `EXECUTE search(${params.map((p) => c.escapeLiteral(String(p))).join(', ')})`;
    for (let i = 0; i < 5; i++) await c.query(execute);
    const { rows } = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${execute}`);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    const readsIndex = /Index Scan on devices_search|Index Scan using devices_search/.test(plan);
    return {
      note: `name search \`q=${SEARCH}\` sorted by name, EXPLAIN (ANALYZE, BUFFERS):\n\n\`\`\`\n${plan}\n\`\`\``,
      ...(assertIndex && (!readsIndex || /Seq Scan on devices/.test(plan))
        ? { failure: 'the name search does not read the trigram index devices_search' }
        : {}),
    };
  });
}

/**
 * The counters the triggers keep (counts per owner, stored bytes per device) against the tables
 * themselves: COPY fires the triggers as uploads do, and any difference stops the bench.
 */
async function checkCounters(url: string): Promise<{ note: string; failure?: string }> {
  return withClient(url, async (c) => {
    // A million devices' sums group in memory rather than on disk.
    await c.query("SET work_mem = '256MB'");
    const perLevel = (f: (level: string) => string) => LEVELS.map(f).join(', ');
    const { rows: owners } = await c.query<{ wrong: string; owners: string }>(`
      WITH kept AS (
        SELECT owner, sum(devices) AS devices, sum(active_devices) AS active, sum(runs) AS runs,
          ${perLevel((l) => `sum(${l}_bytes) AS ${l}_bytes, sum(${l}_runs) AS ${l}_runs`)}
        FROM counts GROUP BY owner
      ), d AS (
        SELECT owner, count(*) AS devices, count(*) FILTER (WHERE revoked_at IS NULL) AS active FROM devices GROUP BY owner
      ), r AS (
        SELECT owner, count(*) AS runs,
          ${perLevel((l) => `coalesce(sum(size) FILTER (WHERE privacy = '${l}'), 0) AS ${l}_bytes, count(*) FILTER (WHERE privacy = '${l}') AS ${l}_runs`)}
        FROM runs GROUP BY owner
      )
      SELECT count(*) FILTER (WHERE
        (coalesce(kept.devices, 0), coalesce(kept.active, 0), coalesce(kept.runs, 0),
          ${perLevel((l) => `coalesce(kept.${l}_bytes, 0), coalesce(kept.${l}_runs, 0)`)})
        IS DISTINCT FROM (coalesce(d.devices, 0), coalesce(d.active, 0), coalesce(r.runs, 0),
          ${perLevel((l) => `coalesce(r.${l}_bytes, 0), coalesce(r.${l}_runs, 0)`)})) AS wrong,
        count(*) AS owners
      FROM kept FULL JOIN d USING (owner) FULL JOIN r USING (owner)`);
    const { rows: bytes } = await c.query<{ wrong: string; devices: string }>(`
      SELECT count(*) FILTER (WHERE coalesce(k.bytes, 0) <> coalesce(r.bytes, 0)) AS wrong, count(*) AS devices
      FROM (SELECT device_id, sum(bytes) AS bytes FROM device_bytes GROUP BY device_id) AS k
      FULL JOIN (SELECT device_id, sum(size) AS bytes FROM runs GROUP BY device_id) AS r USING (device_id)`);
    const wrongOwners = Number(owners[0]?.wrong);
    const wrongDevices = Number(bytes[0]?.wrong);
    if (wrongOwners > 0 || wrongDevices > 0) {
      const failure = `counters differ from the tables: ${wrongOwners} owners' counts, ${wrongDevices} devices' bytes`;
      return { note: failure, failure };
    }
    return {
      note: `counters exact: the counts of ${owners[0]?.owners} owners and the stored bytes of ${bytes[0]?.devices} devices equal the tables`,
    };
  });
}

/** The table of results.md: each page at both stages, and their ratio against the 1.5 goal. */
function tableOf(stages: StageResult[]): string {
  const [small, large] = stages;
  if (!small || !large) return '';
  const lines = [
    `| list | page | ${small.runs.toLocaleString('en-US')} runs: median (p95) ms | ${large.runs.toLocaleString('en-US')} runs: median (p95) ms | ratio of medians (p95) | met (≤ 1.5) |`,
    '|---|---:|---:|---:|---:|---|',
  ];
  for (const p of small.pages) {
    const q = large.pages.find((l) => l.list === p.list && l.page === p.page);
    if (!q) continue;
    const ratio = q.median / p.median;
    lines.push(
      `| ${p.list} | ${p.page} | ${p.median.toFixed(1)} (${p.p95.toFixed(1)}) | ${q.median.toFixed(1)} (${q.p95.toFixed(1)}) | ${ratio.toFixed(2)} (${(q.p95 / p.p95).toFixed(2)}) | ${ratio <= 1.5 ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

function sectionOf(r: ScaleResult): string {
  const stageLines = r.stages.map(
    (s, n) =>
      `- ${n === 0 ? 'Smaller' : 'Larger'}: ${s.devices.toLocaleString('en-US')} devices, ${s.runs.toLocaleString('en-US')} runs, ${s.audit.toLocaleString('en-US')} audit records; COPY in ${s.loadSeconds.toFixed(0)} s, VACUUM ANALYZE in ${s.vacuumSeconds.toFixed(0)} s.\n${s.notes.map((note) => `  - ${note.replaceAll('\n', '\n    ')}`).join('\n')}`,
  );
  return `## PostgreSQL at 10,000,000 runs

Measured with \`node bench/postgres_scale.ts\` on ${new Date().toISOString().slice(0, 10)}, with the server's own settings
(PostgreSQL 15 as installed: shared_buffers 128 MB), one \`paddock serve\` (pool 10), one client
sending one request at a time: the median and p95 of 30 requests after 3 unmeasured, for each
list's first page and its 100th page. ${r.how}

${stageLines.join('\n')}

${r.table}
`;
}

/** Runs the bench, prints its table and, at the full size, writes its section of bench/results.md. */
export async function runScale(opts: ScaleOptions): Promise<void> {
  await report(await scaleBench(opts));
}

async function report(result: ScaleResult): Promise<void> {
  process.stdout.write(`${result.table}\n`);
  const last = result.stages.at(-1);
  if (last?.runs === 10_000_000 && last.devices === 1_000_000) await writeSection(sectionOf(result));
  const failures = result.stages.flatMap((s) => s.failures);
  if (failures.length > 0) throw new Error(`PostgreSQL at scale: ${failures.join('; ')}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10000000' },
      devices: { type: 'string', default: '1000000' },
      accounts: { type: 'string', default: '10000' },
      requests: { type: 'string', default: '30' },
      /** Keep the database, and write the run to this file after each stage… */
      keep: { type: 'boolean', default: false },
      save: { type: 'string' },
      /** One stage at the full size. */
      single: { type: 'boolean', default: false },
      /** Two saved runs' databases measured in turns (compareRuns), `rounds` times. */
      small: { type: 'string' },
      large: { type: 'string' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const opts = {
    runs: Number(values.runs),
    devices: Number(values.devices),
    accounts: Number(values.accounts),
    requests: Number(values.requests),
    keep: values.keep,
    save: values.save,
    single: values.single,
    log: (line: string) => process.stderr.write(`bench: ${new Date().toISOString().slice(11, 19)} ${line}\n`),
  };
  if (values.small && values.large)
    await report(await compareRuns({ small: values.small, large: values.large }, Number(values.rounds), opts));
  else await runScale(opts);
}
