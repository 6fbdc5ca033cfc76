/**
 * `npm run bench`: builds a dataset through the store interface, starts a real `paddock serve`
 * on loopback, and loads it with autocannon, one target at a time, each next to its baseline
 * measured in the same run. Writes bench/results.md. `--quick` for a small, fast run.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sessionCodec } from '../src/session/session.ts';
import { openSqliteStore } from '../src/store/sqlite/sqlite_store.ts';
import { startBaseline } from './baseline.ts';
import { buildDataset } from './dataset.ts';
import { load, peakRssMiB, rssMiB, type LoadResult } from './load.ts';
import { printTable, type Row, writeReport } from './report.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    devices: { type: 'string' },
    accounts: { type: 'string' },
    runs: { type: 'string' },
    duration: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    /** Only the targets whose name contains this text (for profiling one of them). */
    only: { type: 'string' },
  },
});
const quick = values.quick;
const size = {
  devices: Number(values.devices ?? (quick ? 2_000 : 100_000)),
  accounts: Number(values.accounts ?? (quick ? 200 : 10_000)),
  runs: Number(values.runs ?? (quick ? 20_000 : 1_000_000)),
};
const duration = Number(values.duration ?? (quick ? 2 : 5));
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const dir = await mkdtemp(join(tmpdir(), 'paddock-bench-'));
const dataDir = join(dir, 'data');
const started = Date.now();
const store = openSqliteStore(dataDir);
const dataset = await buildDataset(store, size, log);
await store.close();
const buildSeconds = (Date.now() - started) / 1000;
log(`dataset built in ${buildSeconds.toFixed(1)} s`);

const key = randomBytes(32);
const codec = sessionCodec([key], 43_200);
const cookie = (subject: string, admin: boolean) =>
  `service_admin=${codec.encode(codec.newSession({ subject, display: subject, admin }, Date.now()))}`;
const adminCookie = cookie('local:admin', true);
const ownerCookie = cookie(dataset.owner, false);

// A server that has started before finds its modules in Node's compile cache (bin/paddock.js) and
// does not load the TypeScript stripper; `paddock --help` loads the same modules, so the measured
// server starts as it does after any restart. The first start after `npm ci` holds ~30 MiB more.
await once(spawn(process.execPath, ['bin/paddock.js', '--help'], { stdio: 'ignore' }), 'exit');

const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;
const server = spawn(
  process.execPath,
  [
    // The same V8 flags as `npm start` and bin/paddock.js.
    '--max-semi-space-size=2',
    '--max-old-space-size=256',
    ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${join(process.cwd(), 'bench', 'profiles')}`] : []),
    'bin/paddock.js',
    'serve',
  ],
  {
    env: {
      PATH: process.env.PATH ?? '',
      PADDOCK_LISTEN: `127.0.0.1:${port}`,
      PADDOCK_DATA_DIR: dataDir,
      PADDOCK_SESSION_KEYS: key.toString('base64'),
      PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
      PADDOCK_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
const pid = server.pid ?? 0;
await new Promise<void>((resolve) =>
  server.stderr.on('data', (d: Buffer) => d.toString().includes('serving on') && resolve()),
);
log(`paddock serve on ${base} (pid ${pid}), RSS ${rssMiB(pid).toFixed(0)} MiB`);

const get = async (path: string, c?: string) => {
  const res = await fetch(`${base}${path}`, { headers: c ? { cookie: c } : {} });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
  return { body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') ?? '' };
};
/**
 * A later keyset page, `hops` "older" links from the first: the last page on the way that is
 * itself followed by another, so it holds a whole page of rows even for an account whose list is
 * short (an owner's last page may hold two rows, which would flatter the figure).
 */
const laterPage = async (path: string, c: string, hops: number) => {
  let full = path;
  let next = path;
  for (let i = 0; i <= hops; i++) {
    const page = (await get(next, c)).body.toString();
    const link = new RegExp(`href="(${path}\\?before=\\d+)"`).exec(page)?.[1];
    if (!link) break;
    full = next;
    next = link;
  }
  return full;
};

const rows: Row[] = [];
const selected = (name: string) => values.only === undefined || name.includes(values.only);
const opts = { connections: 50, duration, pid };

/** Runs the target and its baseline back to back (baseline first) and records the ratio. */
async function compare(
  name: string,
  path: string,
  c: string | undefined,
  target: { minRatio?: number; maxP99?: number },
  baselineBody?: Buffer,
  baselineType?: string,
) {
  if (!selected(name)) return;
  const page = baselineBody ? { body: baselineBody, type: baselineType ?? 'text/plain' } : await get(path, c);
  const baseline = await startBaseline(dir, name.replace(/\W+/g, '-'), page.body, page.type);
  const raw = await load(`${name} (baseline)`, { ...opts, url: baseline.url, pid: baseline.pid });
  await baseline.stop();
  const result = await load(name, { ...opts, url: `${base}${path}`, headers: c ? { cookie: c } : {} });
  const ratio = result.requestsPerSecond / raw.requestsPerSecond;
  const met =
    (target.minRatio === undefined || ratio >= target.minRatio) &&
    (target.maxP99 === undefined || result.p99 < target.maxP99) &&
    result.non2xx === 0 &&
    result.errors === 0;
  const goal = [target.minRatio && `≥ ${target.minRatio} of baseline`, target.maxP99 && `p99 < ${target.maxP99} ms`]
    .filter(Boolean)
    .join(', ');
  rows.push({ ...result, baselineRps: raw.requestsPerSecond, ratio, goal, met });
  log(
    `${name}: ${result.requestsPerSecond.toFixed(0)} req/s vs ${raw.requestsPerSecond.toFixed(0)} (${ratio.toFixed(2)}), p99 ${result.p99} ms${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}`,
  );
}

await compare('GET /healthz', '/healthz', undefined, { minRatio: 0.75 }, Buffer.from('hello world\n'), 'text/plain');
for (const [who, c] of [
  ['admin', adminCookie],
  ['owner', ownerCookie],
] as const) {
  for (const list of ['/devices', '/runs']) {
    await compare(`GET ${list} first page, ${who}`, list, c, { minRatio: 0.8, maxP99: 15 });
    const later = await laterPage(list, c, 10);
    await compare(`GET ${list} later page, ${who}`, later, c, { minRatio: 0.8, maxP99: 15 });
  }
}
await compare('GET /runs/{device}/{id} 8 KiB', `/runs/${dataset.smallRun.device}/${dataset.smallRun.id}`, adminCookie, {
  minRatio: 0.8,
});

// Uploads: 50 devices at once, 1 KiB each, every request a new run id.
let acknowledged = 0;
if (selected('PUT /v1/runs/{id} 1 KiB')) {
  const payload = Buffer.alloc(1024, 'u');
  let sequence = 0;
  const upload: LoadResult = await load('PUT /v1/runs/{id} 1 KiB', {
    ...opts,
    url: base,
    requests: [
      {
        method: 'PUT',
        setupRequest: (req, ctx: object) => {
          const context = ctx as { credential?: string };
          context.credential ??= dataset.uploadCredentials[sequence % dataset.uploadCredentials.length];
          return {
            ...req,
            path: `/v1/runs/bench-${sequence++}`,
            headers: {
              authorization: `Bearer ${String(context.credential)}`,
              'x-privacy-level': 'full',
              'content-type': 'text/plain',
            },
            body: payload,
          };
        },
      },
    ],
  });
  rows.push({
    ...upload,
    baselineRps: undefined,
    ratio: undefined,
    goal: '≥ 2500 uploads/s',
    met: upload.requestsPerSecond >= 2500 && upload.non2xx === 0,
  });
  acknowledged = upload.ok;
  log(`uploads: ${upload.requestsPerSecond.toFixed(0)}/s, ${upload.ok} acknowledged`);
}

// Ten concurrent views of a 16 MiB run: resident memory must grow by less than 64 MiB.
if (selected('GET /runs/{device}/{id} 16 MiB ×10')) {
  const before = rssMiB(pid);
  const large = await load('GET /runs/{device}/{id} 16 MiB ×10', {
    connections: 10,
    amount: quick ? 10 : 30,
    timeout: 60,
    pid,
    url: `${base}/runs/${dataset.largeRun.device}/${dataset.largeRun.id}`,
    headers: { cookie: adminCookie },
  });
  const growth = large.peakRssMiB - before;
  rows.push({
    ...large,
    baselineRps: undefined,
    ratio: undefined,
    goal: `RSS growth < 64 MiB (was ${growth.toFixed(0)} MiB)`,
    met: growth < 64 && large.non2xx === 0,
  });
  log(`16 MiB views: RSS ${before.toFixed(0)} → ${large.peakRssMiB.toFixed(0)} MiB`);
}

const peak = peakRssMiB(pid);
server.kill('SIGTERM');
await once(server, 'exit');

// Every acknowledged upload must be readable afterwards.
const check = openSqliteStore(dataDir);
const stored = (await check.countsVisibleTo({ subject: dataset.uploadOwner, admin: false })).runs;
await check.close();
log(
  `uploads acknowledged ${acknowledged}, stored ${stored} (requests still in flight when the load stopped are stored but not counted)`,
);

// A partial run (--only) is printed but does not replace the committed results.
if (values.only === undefined) {
  await writeReport({ rows, size, duration, buildSeconds, peakRssMiB: peak, acknowledged, stored, quick });
} else {
  printTable(rows);
}
await rm(dir, { recursive: true, force: true });
