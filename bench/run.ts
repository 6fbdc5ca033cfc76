/**
 * `npm run bench`: builds a dataset through the store interface, starts a real `paddock serve`
 * on loopback, and loads it with autocannon, one target at a time, each next to its baseline
 * measured in the same run. Writes bench/results.md. `--quick` for a small, fast run.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import { startBaselineServer } from './baseline.ts';
import { comparer, DASHBOARD_TAKEN_AT, LIST_COUNT_AGE } from './compare.ts';
import {
  adminApiToken,
  buildDataset,
  COMMON_FACT,
  COMMON_LABEL,
  DEVICE_FILTERS,
  markLevelChecked,
  RARE_FACT,
  RARE_LABEL,
} from './dataset.ts';
import { load, peakRssMiB, rssMiB } from './load.ts';
import { printTable, type Row, writeReport } from './report.ts';
import { postgresBench } from './postgres.ts';
import { runScale } from './postgres_scale.ts';
import { sessionCookie, startPaddock } from './server.ts';
import { uploadLoad } from './uploads.ts';
import { AUDIT_UPLOADS, auditUploadsBench, METRICS_UPLOADS, WEBHOOK_UPLOADS } from './audit_uploads.ts';
import { SWEEP, sweepBench } from './sweep.ts';
import { HAND_OVER, handOverRows } from './hand_over.ts';
import { collectionsBench } from './collections.ts';
import { HEAP_SETTINGS, heapTableLines, youngGenerationTable, type HeapRow } from './young_generation.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    devices: { type: 'string' },
    accounts: { type: 'string' },
    runs: { type: 'string' },
    duration: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    /** Only the targets whose name contains this text, or one of several separated by `|`. */
    only: { type: 'string' },
    /** Skip the PostgreSQL section. */
    'no-postgres': { type: 'boolean', default: false },
    /** PostgreSQL pool sizes to measure uploads with (comma-separated). */
    pools: { type: 'string' },
    /** Skip the young-generation table (bench/young_generation.ts: about two minutes a row). */
    'no-heap-table': { type: 'boolean', default: false },
    /** Also PostgreSQL at 10,000,000 runs (bench/postgres_scale.ts: hours of loading; with --quick, 200,000). */
    scale: { type: 'boolean', default: false },
    /** Skip the heap a connection costs and the stalled bodies under a 64 MiB heap (bench/heap_holds.ts: about three minutes). */
    'no-heap-holds': { type: 'boolean', default: false },
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
const apiToken = await adminApiToken(store);
await store.close();
const db = new DatabaseSync(join(dataDir, 'paddock.db'));
markLevelChecked(db);
// The uploading devices are the newest, so they are the plain list's first page: as if each had
// uploaded before the measured load, so that page shows a last upload in every row as a filtered
// page of bench devices does (without, the plain list drew 50 fewer times and came out cheaper).
db.prepare(
  "UPDATE devices SET last_upload_at = last_seen_at WHERE id LIKE 'd_upload%' AND last_upload_at IS NULL",
).run();
// An audit trail of a tenth as many records as runs, one a minute, as the console's actions write
// them: three events in turn, by the accounts in turn, so each filter selects a real share.
const auditRecords = Math.floor(size.runs / 10);
const append = db.prepare(
  "INSERT INTO audit (at, event, account, client, device, run, detail) VALUES (?, ?, ?, '127.0.0.1', ?, ?, ?)",
);
db.exec('BEGIN');
for (let i = 0; i < auditRecords; i++) {
  const event = (['run.deleted', 'device.revoked', 'device.renamed'] as const)[i % 3] ?? 'run.deleted';
  const device = `d_bench${i % size.devices}`;
  append.run(
    Date.now() - 86_400_000 - (auditRecords - i) * 60_000,
    event,
    `oidc:account-${i % size.accounts}`,
    device,
    event === 'run.deleted' ? `run-${i}` : null,
    event === 'device.renamed' ? `name=bench device ${i} <renamed>` : '',
  );
}
db.exec('COMMIT');
db.close();
const buildSeconds = (Date.now() - started) / 1000;
log(`dataset built in ${buildSeconds.toFixed(1)} s`);

const key = randomBytes(32);
const cookie = (subject: string, admin: boolean, where = dataDir) => sessionCookie(key, subject, admin, where);
const adminCookie = await cookie('local:admin', true);
const ownerCookie = await cookie(dataset.owner, false);
const memberCookie = await cookie(dataset.member, false);
const fleetOwnerCookie = await cookie(dataset.fleetOwner, false);

// A server that has started before finds its modules in Node's compile cache (bin/paddock.js) and
// does not load the TypeScript stripper; `paddock --help` loads the same modules, so the measured
// server starts as it does after any restart. The first start after `npm ci` holds ~30 MiB more.
await once(spawn(process.execPath, ['bin/paddock.js', '--help'], { stdio: 'ignore' }), 'exit');

// The young-generation table (issue 38): a server for each pair of heap settings on this dataset,
// before the measured server starts, so that neither shares the cores with the other.
const pageBaseline = () =>
  startBaselineServer(new URL('./page_baseline_server.ts', import.meta.url).pathname, [
    dataDir,
    key.toString('base64'),
  ]);
const heapPages = [
  '/devices',
  '/runs',
  '/devices?q=device+123&sort=name',
  '/devices?status=active&sort=last_seen',
  '/runs?privacy=minimal',
  `/runs?since=${new Date(dataset.runsMidDay).toISOString().slice(0, 10)}`,
  '/audit',
  `/devices?label=${encodeURIComponent(COMMON_LABEL)}`,
  `/devices?fact=${encodeURIComponent(COMMON_FACT)}`,
  '/',
];
let heapRows: HeapRow[] | undefined;
if (!values['no-heap-table'] && (values.only === undefined || 'young generation'.includes(values.only))) {
  // On a copy of the store: the table's servers sweep, rotate and record as any server does, and
  // the measured server must meet the dataset as built (its dashboard differed from its
  // baseline's after the table had run on the store itself).
  const tableDir = join(dir, 'heap-table');
  await cp(dataDir, tableDir, { recursive: true });
  heapRows = await youngGenerationTable(
    {
      dataDir: tableDir,
      sessionKey: key.toString('base64'),
      adminCookie,
      pages: heapPages,
      largeRun: `/runs/${dataset.largeRun.device}/${dataset.largeRun.id}`,
      uploadCredentials: dataset.uploadCredentials,
      duration,
      connections: quick ? 2_000 : 10_000,
      baseline: pageBaseline,
      log,
    },
    HEAP_SETTINGS,
  );
  process.stdout.write(`${heapTableLines(heapRows).join('\n')}\n`);
  await rm(tableDir, { recursive: true, force: true });
}

const server = await startPaddock(
  {
    PADDOCK_DATA_DIR: dataDir,
    PADDOCK_SESSION_KEYS: key.toString('base64'),
    PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
  },
  { cpuProf: values['cpu-prof'] },
);
const { base, pid } = server;
log(`paddock serve on ${base} (pid ${pid}), RSS ${rssMiB(pid).toFixed(0)} MiB`);

const rows: Row[] = [];
const selected = (name: string) => values.only === undefined || values.only.split('|').some((o) => name.includes(o));
const { compare, compareTo, laterPage, versus } = comparer({ dir, base, pid, duration, rows, log, selected });
// The list pages' baseline (pageBaseline above): a raw server doing the same session check, query and render.
const page = (name: string, path: string, c: string) =>
  compareTo(name, path, c, { minRatio: 0.9, maxP99: 15, ignore: LIST_COUNT_AGE }, pageBaseline);

await compare('GET /healthz', '/healthz', undefined, { minRatio: 0.75 }, Buffer.from('hello world\n'), 'text/plain');
// The dashboard: the same self-test, counts (through the count cache), chart and retention section.
await compareTo(
  'GET / (dashboard, counts), admin',
  '/',
  adminCookie,
  { minRatio: 0.8, ignore: DASHBOARD_TAKEN_AT },
  pageBaseline,
);
for (const [who, c] of [
  ['admin', adminCookie],
  ['owner', ownerCookie],
] as const) {
  for (const list of ['/devices', '/runs']) {
    await page(`GET ${list} first page, ${who}`, list, c);
    await page(`GET ${list} later page, ${who}`, await laterPage(list, c, 10), c);
  }
}
// Groups own devices (docs/contract.md section 19): an account in 20 groups, whose first pages read
// 21 owners' lists, against an owner of as many devices without groups (the same rows on each
// page), on the same server, back to back.
for (const list of ['/devices', '/runs'])
  await versus(
    `GET ${list} first page, group member (20 groups), vs an owner's`,
    list,
    list,
    memberCookie,
    { minRatio: 0.9 },
    { c: fleetOwnerCookie, name: 'an owner of as many devices' },
  );
// The filtered lists (docs/contract.md section 9): a search sorted by name, a status sorted by last seen, a
// privacy level, a day range; each first page and a later one, with the filters kept by the links.
const day = new Date(dataset.runsMidDay).toISOString().slice(0, 10);
for (const [who, c] of [
  ['admin', adminCookie],
  ['owner', ownerCookie],
] as const) {
  for (const path of [
    '/devices?q=device+123&sort=name',
    '/devices?status=active&sort=last_seen',
    '/runs?privacy=minimal',
    `/runs?since=${day}&until=${day}`,
  ]) {
    await page(`GET ${path} first page, ${who}`, path, c);
    const later = await laterPage(path, c, 10);
    if (later !== path) await page(`GET ${path} later page, ${who}`, later, c);
  }
}
// The audit trail (admin only), plain and filtered by an event and by an actor.
for (const path of ['/audit', '/audit?event=run.deleted', '/audit?actor=oidc%3Aaccount-7']) {
  await page(`GET ${path} first page, admin`, path, adminCookie);
  const later = await laterPage(path, adminCookie, 10);
  if (later !== path) await page(`GET ${path} later page, admin`, later, adminCookie);
}
// A rare label (a thousandth of the devices) and a common one (every device), at five labels a
// device (docs/contract.md section 12): each first page against the plain list on the same server,
// and against a raw node:http server answering the same bytes.
for (const [what, label] of [
  ['rare', RARE_LABEL],
  ['common', COMMON_LABEL],
] as const) {
  const path = `/devices?label=${encodeURIComponent(label)}`;
  await versus(
    `GET /devices?label=${label} first page (${what}), admin, vs the plain list`,
    path,
    '/devices',
    adminCookie,
    { minRatio: 0.8 },
  );
  await page(`GET /devices?label=${label} first page (${what}), admin`, path, adminCookie);
}
// A rare fact (one device) and a common one (every device), at five facts a device (docs/contract.md
// section 16), as the labels above: read from the fact index, against the plain list and a raw server.
// A filtered page also counts the devices a collection would reach (up to 100,001), which for the
// common fact is every device: the API's rows below read the list alone.
for (const [what, fact] of [
  ['rare', RARE_FACT],
  ['common', COMMON_FACT],
] as const) {
  const path = `/devices?fact=${encodeURIComponent(fact)}`;
  await versus(
    `GET /devices?fact=${fact} first page (${what}), admin, vs the plain list`,
    path,
    '/devices',
    adminCookie,
    { minRatio: 0.8 },
  );
  await page(`GET /devices?fact=${fact} first page (${what}), admin`, path, adminCookie);
}
// Every other filter of the device list, its count included (docs/contract.md section 22: "1–50 of
// 12,345", counted up to 10,000 and kept a few seconds per filter), against the plain list on the
// same server (DEVICE_FILTERS).
for (const [what, query] of DEVICE_FILTERS)
  await versus(
    `GET /devices?${query} first page (${what}), admin, vs the plain list`,
    `/devices?${query}`,
    '/devices',
    adminCookie,
    { minRatio: 0.8 },
  );
// The same lists as JSON through the API, with a bearer token (its last use is written at most once
// a minute), against a minimal server doing the same token lookup, query and JSON render.
const apiBaseline = () => startBaselineServer(new URL('./api_baseline_server.ts', import.meta.url).pathname, [dataDir]);
for (const path of [
  '/api/v1/devices',
  '/api/v1/devices?status=active&sort=last_seen',
  `/api/v1/devices?label=${encodeURIComponent(RARE_LABEL)}`,
  `/api/v1/devices?label=${encodeURIComponent(COMMON_LABEL)}`,
  `/api/v1/devices?fact=${encodeURIComponent(RARE_FACT)}`,
  `/api/v1/devices?fact=${encodeURIComponent(COMMON_FACT)}`,
  '/api/v1/runs?privacy=minimal',
])
  await compareTo(`GET ${path} first page, admin token`, path, `Bearer ${apiToken}`, { minRatio: 0.9 }, apiBaseline);
// A run's page against the same-work baseline too (the run read in scope, the same view).
await compareTo(
  'GET /runs/{device}/{id} 8 KiB',
  `/runs/${dataset.smallRun.device}/${dataset.smallRun.id}`,
  adminCookie,
  { minRatio: 0.8 },
  pageBaseline,
);

// Uploads: 50 devices at once, 1 KiB each, every request a new run id.
let acknowledged = 0;
if (selected('PUT /v1/runs/{id} 1 KiB')) {
  const upload = await uploadLoad('PUT /v1/runs/{id} 1 KiB', base, dataset.uploadCredentials, { duration, pid });
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

// Uploads with the audit decorator and without it, in processes of their own (bench/audit_uploads.ts).
if (selected(AUDIT_UPLOADS)) rows.push(await auditUploadsBench({ duration, rounds: quick ? 1 : 3, log }));
if (selected(METRICS_UPLOADS))
  rows.push(await auditUploadsBench({ duration, rounds: quick ? 1 : 3, log, measured: 'metrics' }));
if (selected(WEBHOOK_UPLOADS))
  rows.push(await auditUploadsBench({ duration, rounds: quick ? 1 : 3, log, measured: 'webhooks' }));

// Uploads and the runs page while the retention sweep deletes 100,000 expired runs, on a store
// and servers of their own (bench/sweep.ts). The sweep lasts about 9 s whatever --quick says, and
// two loads of 3 s fit inside it.
if (selected(SWEEP)) rows.push(...(await sweepBench({ runs: 100_000, duration: 3, rounds: quick ? 1 : 3, log })));

// Issue 43: a deactivation that hands 10,000 devices over, on stores and servers of their own
// (bench/hand_over.ts): done within 5 s, uploads meanwhile at p95 within 1.5 times.
if (selected(HAND_OVER)) rows.push(...(await handOverRows({ devices: quick ? 2_000 : 10_000, rounds: quick ? 1 : 3 })));

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
await server.stop();

// Every acknowledged upload must be readable afterwards.
const check = openSqliteStore(dataDir);
const stored = (await check.countsVisibleTo({ subject: dataset.uploadOwner, admin: false })).runs;
await check.close();
log(
  `uploads acknowledged ${acknowledged}, stored ${stored} (requests still in flight when the load stopped are stored but not counted)`,
);

// Collection requests (issue 35): requests held over TLS against a bare node:https server, a
// collection reaching every held device on SQLite and on PostgreSQL (one instance and two), a
// collection of 100,000 targets on PostgreSQL, pages and uploads while the requests are held; on
// stores and servers of their own (bench/collections.ts; `--only collections` for these rows alone).
rows.push(
  ...(await collectionsBench({
    held: quick ? 2_000 : 10_000,
    targets: quick ? 20_000 : 100_000,
    duration,
    rounds: quick ? 1 : 3,
    postgres: !values['no-postgres'],
    cpuProf: values['cpu-prof'],
    selected,
    log,
  })),
);

const postgres = values['no-postgres']
  ? undefined
  : await postgresBench({
      dir,
      size,
      duration,
      pools: (values.pools ?? (quick ? '10' : '5,10,20')).split(',').map(Number),
      sessionKey: key,
      cookie,
      log,
      selected,
      cpuProf: values['cpu-prof'],
    });

// A partial run (--only) is printed but does not replace the committed results.
if (values.only === undefined) {
  await writeReport({
    rows,
    size,
    duration,
    buildSeconds,
    peakRssMiB: peak,
    acknowledged,
    stored,
    quick,
    postgres,
    heapRows,
  });
} else {
  printTable([...rows, ...(postgres?.rows ?? [])]);
}
// Issue 42 (bench/heap_holds.ts, which also runs alone): on servers and a store of its own, in a
// process of its own; it writes its section of bench/results.md after the report above.
if (!values['no-heap-holds'] && values.only === undefined)
  await once(
    spawn(process.execPath, ['bench/heap_holds.ts', ...(quick ? ['--quick'] : [])], { stdio: 'inherit' }),
    'exit',
  );
if (values.scale)
  await runScale({
    runs: quick ? 200_000 : 10_000_000,
    devices: quick ? 20_000 : 1_000_000,
    accounts: quick ? 2_000 : 10_000,
    requests: quick ? 10 : 30,
    log,
  });
await rm(dir, { recursive: true, force: true });
