/**
 * The PostgreSQL section of `npm run bench`: the same upload load and list pages against
 * `paddock serve` on PostgreSQL, with `pgbench` inserting 1 KiB rows into a minimal table of the same
 * database in the same run as the baseline for uploads, and the dashboard's counts timed at full size.
 * The database is the one PADDOCK_BENCH_DATABASE_URL names, else the local one `.ci/run` provides;
 * a database of its own is made there and dropped afterwards.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { openPostgresStore } from '../src/store/postgres/store.ts';
import { startBaselineServer } from './baseline.ts';
import { comparer, DASHBOARD_TAKEN_AT } from './compare.ts';
import { COMMON_FACT, COMMON_LABEL, type DatasetSize, DEVICE_FILTERS, RARE_LABEL, RUN_EVERY_MS } from './dataset.ts';
import type { PostgresSection, Row } from './report.ts';
import { startPaddock } from './server.ts';
import { uploadLoad } from './uploads.ts';
import type { LoadResult } from './load.ts';

const run = promisify(execFile);

const UPLOADERS = 50;

export async function postgresBench(ctx: {
  dir: string;
  size: DatasetSize;
  duration: number;
  pools: number[];
  sessionKey: Buffer;
  /** A recorded session's cookie, in the store at `where` (a data directory or a PostgreSQL URL). */
  cookie: (subject: string, admin: boolean, where: string) => Promise<string>;
  log: (line: string) => void;
  selected: (name: string) => boolean;
  cpuProf?: boolean;
}): Promise<PostgresSection | undefined> {
  let database: BenchDatabase;
  try {
    database = await benchDatabase();
  } catch (err) {
    ctx.log(`PostgreSQL section skipped: ${(err as Error).message}`);
    return undefined;
  }
  const url = new URL(database.url);
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    const started = Date.now();
    const credentials = await fill(url.href, ctx.size);
    notes.push(
      `Dataset: ${ctx.size.devices} devices, ${ctx.size.runs} runs of 1 KiB (bulk-inserted with \`generate_series\` in ${((Date.now() - started) / 1000).toFixed(0)} s, then \`VACUUM ANALYZE\`), ${UPLOADERS} uploading devices.`,
    );
    ctx.log(`PostgreSQL dataset in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    notes.push(...(await countsTimings(url.href, ctx.size.runs)));

    const pgbench = await pgbenchInserts(url, ctx.dir, ctx.duration);
    ctx.log(`pgbench: ${pgbench.toFixed(0)} inserts/s`);
    const uploadRows: Row[] = [];
    const uploads = ctx.pools
      .map((pool) => ({ pool, name: `PostgreSQL: PUT /v1/runs/{id} 1 KiB, pool ${pool}` }))
      .filter(({ name }) => ctx.selected(name));
    // Where the gap to pgbench lies, measured in the same run: the same uploads through a raw
    // server into the minimal table (HTTP, the load generator and Node on the same cores), then
    // into Paddock's own table (its indexes and triggers).
    const floor = uploads.length > 0 ? await uploadFloor(url, 'minimal', credentials, ctx.duration) : undefined;
    await dropMinimal(url);
    const schema = uploads.length > 0 ? await uploadFloor(url, 'runs', credentials, ctx.duration) : undefined;
    for (const { pool, name } of uploads) {
      const server = await startPaddock(
        {
          PADDOCK_DATABASE_URL: url.href,
          PADDOCK_DATABASE_POOL: String(pool),
          PADDOCK_SESSION_KEYS: ctx.sessionKey.toString('base64'),
          PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
        },
        { cpuProf: ctx.cpuProf },
      );
      const upload = await uploadLoad(name, server.base, credentials, {
        duration: ctx.duration,
        pid: server.pid,
        prefix: `pool${pool}`,
      });
      await server.stop();
      const ratio = upload.requestsPerSecond / pgbench;
      const row = {
        ...upload,
        baselineRps: pgbench,
        ratio,
        goal: '≥ 0.5 of pgbench (minimal table), none refused',
        met: ratio >= 0.5 && upload.non2xx === 0 && upload.errors === 0,
      };
      rows.push(row);
      uploadRows.push(row);
      ctx.log(
        `${name}: ${upload.requestsPerSecond.toFixed(0)}/s (${ratio.toFixed(2)} of pgbench), server CPU ${upload.cpuMicrosPerRequest.toFixed(0)} µs an upload, ${upload.non2xx} non-2xx`,
      );
    }

    if (floor && schema) {
      notes.push(uploadGap(pgbench, floor, schema, uploadRows));
      ctx.log(notes.at(-1) ?? '');
    }

    const server = await startPaddock({
      PADDOCK_DATABASE_URL: url.href,
      PADDOCK_SESSION_KEYS: ctx.sessionKey.toString('base64'),
      PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
    });
    const { compareTo, laterPage, versus } = comparer({ ...ctx, base: server.base, pid: server.pid, rows });
    // The list pages' baseline on the same database (bench/page_baseline_server.ts).
    const pageBaseline = () =>
      startBaselineServer(new URL('./page_baseline_server.ts', import.meta.url).pathname, [
        url.href,
        ctx.sessionKey.toString('base64'),
      ]);
    const page = (name: string, path: string, c: string) =>
      compareTo(name, path, c, { minRatio: 0.9, maxP99: 15 }, pageBaseline);
    const admin = await ctx.cookie('local:admin', true, url.href);
    const owner = await ctx.cookie('oidc:account-0', false, url.href);
    for (const [who, c] of [
      ['admin', admin],
      ['owner', owner],
    ] as const) {
      for (const list of ['/devices', '/runs']) {
        await page(`PostgreSQL: GET ${list} first page, ${who}`, list, c);
      }
    }
    await page('PostgreSQL: GET /runs later page, admin', await laterPage('/runs', admin, 10), admin);
    // The filtered lists (docs/contract.md section 9), as in the SQLite section.
    const day = new Date(Date.now() - 86_400_000 - (ctx.size.runs / 2) * RUN_EVERY_MS).toISOString().slice(0, 10);
    for (const path of [
      '/devices?q=device+123&sort=name',
      '/runs?privacy=minimal',
      `/runs?since=${day}&until=${day}`,
    ]) {
      const later = await laterPage(path, admin, 10);
      await page(`PostgreSQL: GET ${later === path ? path : `${path} later page`}, admin`, later, admin);
    }
    // A rare and a common label (docs/contract.md section 12), against the plain list on this server.
    for (const [what, label] of [
      ['rare', RARE_LABEL],
      ['common', COMMON_LABEL],
    ] as const)
      await versus(
        `PostgreSQL: GET /devices?label=${label} first page (${what}), admin, vs the plain list`,
        `/devices?label=${encodeURIComponent(label)}`,
        '/devices',
        admin,
        { minRatio: 0.8 },
      );
    // Every other filter of the device list, its count included (docs/contract.md section 22), as in
    // the SQLite section: against the plain list on this server.
    for (const [what, query] of [['common fact', `fact=${encodeURIComponent(COMMON_FACT)}`], ...DEVICE_FILTERS])
      await versus(
        `PostgreSQL: GET /devices?${query} first page (${what}), admin, vs the plain list`,
        `/devices?${query}`,
        '/devices',
        admin,
        { minRatio: 0.8 },
      );
    await compareTo(
      'PostgreSQL: GET / (dashboard, counts), admin',
      '/',
      admin,
      { minRatio: 0.8, ignore: DASHBOARD_TAKEN_AT },
      pageBaseline,
    );
    await server.stop();
  } finally {
    await database.drop();
  }
  return { rows, notes };
}

/** The uploads' floor: the same load against upload_baseline_server.ts, into the minimal table or into `runs`. */
async function uploadFloor(
  url: URL,
  table: 'minimal' | 'runs',
  credentials: string[],
  duration: number,
): Promise<LoadResult> {
  const script = new URL('./upload_baseline_server.ts', import.meta.url).pathname;
  const floor = await startBaselineServer(script, [url.href, table]);
  try {
    const result = await uploadLoad(`upload floor (${table})`, floor.url, credentials, {
      duration,
      pid: floor.pid,
      prefix: `floor-${table}`,
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`upload floor: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return result;
  } finally {
    await floor.stop();
  }
}

/**
 * The uploads' gap to pgbench, named by its parts as measured in the same run: a raw HTTP server
 * storing the same uploads into the minimal table (HTTP and Node, and the load generator, on the
 * same two cores as the database), the same server into Paddock's `runs` (the schema), and Paddock
 * against that second server (what Paddock does besides).
 */
function uploadGap(pgbench: number, minimal: LoadResult, runs: LoadResult, uploads: Row[]): string {
  const best = Math.max(...uploads.map((u) => u.requestsPerSecond));
  const m = minimal.requestsPerSecond;
  const r = runs.requestsPerSecond;
  return (
    `Uploads' gap to pgbench (${pgbench.toFixed(0)} inserts/s), by its parts in this run: a raw \`node:http\` ` +
    `server storing the same uploads with the same group commit (bench/upload_baseline_server.ts) into the ` +
    `minimal table reaches ${m.toFixed(0)}/s, **${(m / pgbench).toFixed(2)} of pgbench** (HTTP, Node and the load ` +
    `generator on the database's two cores; its CPU ${minimal.cpuMicrosPerRequest.toFixed(0)} µs an upload); into ` +
    `Paddock's \`runs\` (its indexes and counting triggers) ${r.toFixed(0)}/s, **${(r / m).toFixed(2)} of that**; ` +
    `Paddock's best pool reaches **${(best / r).toFixed(2)} of the raw server into \`runs\`** (its own work: the ` +
    `privacy ceiling, the webhook outbox row, last seen, the web-standard request).`
  );
}

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A database of the bench's own on the server PADDOCK_BENCH_DATABASE_URL names, else the local one
 * `.ci/run` provides; `drop` removes it (and ends its connections).
 */
export async function benchDatabase(): Promise<BenchDatabase> {
  const serverUrl = process.env.PADDOCK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `paddock_bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    url: url.href,
    drop: () => withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

export async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The schema through the store (its migrations), the rows in bulk, the uploaders through enrollment. */
async function fill(url: string, size: DatasetSize): Promise<string[]> {
  const store = await openPostgresStore(url);
  const credentials: string[] = [];
  for (let i = 0; i < UPLOADERS; i++) {
    const credential = randomBytes(32).toString('base64url');
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
      credentialHash: createHash('sha256').update(credential).digest('hex'),
    });
    credentials.push(credential);
  }
  await store.close();
  const now = Date.now() - 86_400_000;
  await withClient(url, async (c) => {
    await c.query(
      `INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at, revoked_at)
       SELECT 'd_bench' || i, 'bench device ' || i, 'bench device ' || i, 'oidc:account-' || (i % $2), 'bench-cred-' || i,
         $3::bigint + i, $3::bigint + i, CASE WHEN i % 50 = 49 THEN $3::bigint END
       FROM generate_series(0, $1 - 1) AS i`,
      [size.devices, size.accounts, now],
    );
    // The same five labels a device as the SQLite dataset's (dataset.ts, benchLabels).
    await c.query(
      `INSERT INTO device_labels (device_seq, key, value)
       SELECT d.seq, l.key, CASE l.key WHEN 'fleet' THEN 'main' WHEN 'site' THEN 's' || (n % 10)
         WHEN 'line' THEN 'l' || (n % 100) WHEN 'rack' THEN 'r' || (n % 1000) ELSE 'n' || n END
       FROM (SELECT seq, substr(id, 8)::int AS n FROM devices WHERE id LIKE 'd_bench%') AS d
       CROSS JOIN (VALUES ('fleet'), ('site'), ('line'), ('rack'), ('serial')) AS l (key)`,
    );
    // The same five facts a device as the SQLite dataset's (dataset.ts, benchFacts).
    await c.query(
      `INSERT INTO device_facts (device_seq, key, value)
       SELECT d.seq, f.key, CASE f.key WHEN 'arch' THEN 'x64' WHEN 'os' THEN (ARRAY['linux', 'darwin', 'win32'])[n % 3 + 1]
         WHEN 'client_version' THEN '1.' || (n % 10) || '.0' WHEN 'os_version' THEN '6.' || (n % 50) ELSE 'host-' || n END
       FROM (SELECT seq, substr(id, 8)::int AS n FROM devices WHERE id LIKE 'd_bench%') AS d
       CROSS JOIN (VALUES ('arch'), ('os'), ('client_version'), ('os_version'), ('hostname')) AS f (key)`,
    );
    const body = Buffer.from('t=7 temperature=21.7 status=<ok> & note="bench"\n'.repeat(21).slice(0, 1000));
    for (let start = 0; start < size.runs; start += 200_000) {
      await c.query(
        // Checked by the level check as an upload through the server is (findings of nothing), so
        // no backfill runs under the measured load.
        `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, findings)
         SELECT 'd_bench' || (i % $2), 'run-' || i, 'oidc:account-' || ((i % $2) % $3), 'text/plain',
           (ARRAY['full', 'redacted', 'minimal'])[i % 3 + 1], 1000, 'x',
           $4::bigint + i * ${RUN_EVERY_MS}, $5, CASE WHEN i % 3 = 0 THEN NULL ELSE '{}' END FROM generate_series($1::bigint, LEAST($1::bigint + 199999, $6::bigint - 1)) AS i`,
        [start, size.devices, size.accounts, now - size.runs * RUN_EVERY_MS, body, size.runs],
      );
    }
    await c.query('VACUUM ANALYZE');
  });
  return credentials;
}

/**
 * The dashboard's counts as the store reads them (counters), in ms, for an admin and for an owner
 * (the mean of 20 reads after one), next to what one `count(*)` over the runs costs.
 */
export async function countsTimes(
  url: string,
  owner: string,
): Promise<{ admin: number; owner: number; countAll: number }> {
  const store = await openPostgresStore(url);
  const time = async (work: () => Promise<unknown>) => {
    await work();
    const started = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) await work();
    return Number(process.hrtime.bigint() - started) / 20 / 1e6;
  };
  const admin = await time(() => store.countsVisibleTo({ subject: 'local:admin', admin: true }));
  const own = await time(() => store.countsVisibleTo({ subject: owner, admin: false }));
  await store.close();
  const countAll = await withClient(url, async (c) => {
    const started = process.hrtime.bigint();
    await c.query('SELECT count(*) FROM runs');
    return Number(process.hrtime.bigint() - started) / 1e6;
  });
  return { admin, owner: own, countAll };
}

async function countsTimings(url: string, runs: number): Promise<string[]> {
  const t = await countsTimes(url, 'oidc:account-0');
  return [
    `Dashboard counts at ${runs} runs: ${t.admin.toFixed(2)} ms for an admin and ${t.owner.toFixed(2)} ms for an owner (kept by triggers; the cost follows the number of owners, not of runs), against ${t.countAll.toFixed(0)} ms for one \`count(*)\` over the runs.`,
  ];
}

/**
 * The database's own insert rate, the uploads' baseline: pgbench inserting a 1 KiB row into a
 * minimal table (a device, an id, the bytes, and the primary key only), 50 clients on 2 threads,
 * single-row inserts, each its own transaction. The table is left for the upload floor
 * (upload_baseline_server.ts); `dropMinimal` removes it.
 */
async function pgbenchInserts(url: URL, dir: string, duration: number): Promise<number> {
  await withClient(url.href, (c) =>
    c.query(`CREATE TABLE bench_minimal (device text, id text, body bytea, PRIMARY KEY (device, id));
      CREATE SEQUENCE bench_minimal_seq`),
  );
  return pgbench(
    url,
    dir,
    duration,
    `\\set d random(0, ${UPLOADERS - 1})
INSERT INTO bench_minimal (device, id, body)
  VALUES ('d_upload' || :d, 'pgbench-' || nextval('bench_minimal_seq'), decode(repeat('75', 1024), 'hex'));
`,
  );
}

const dropMinimal = (url: URL) =>
  withClient(url.href, (c) => c.query('DROP TABLE bench_minimal; DROP SEQUENCE bench_minimal_seq'));

/** pgbench running one script, 50 clients on 2 threads, for `duration` seconds: its transactions a second. */
async function pgbench(url: URL, dir: string, duration: number, text: string): Promise<number> {
  const script = join(dir, 'pgbench.sql');
  await writeFile(script, text);
  const { stdout } = await run('pgbench', [
    '-n',
    '-c',
    '50',
    '-j',
    '2',
    '-T',
    String(duration),
    '-f',
    script,
    '-h',
    url.hostname,
    '-p',
    url.port || '5432',
    '-U',
    decodeURIComponent(url.username || 'postgres'),
    url.pathname.slice(1),
  ]);
  const tps = /tps = ([\d.]+)/.exec(stdout)?.[1];
  if (!tps) throw new Error(`pgbench: no rate in ${stdout}`);
  return Number(tps);
}
