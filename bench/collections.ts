/**
 * Collection requests (issue 35, docs/contract.md section 15), each row against a baseline or a
 * condition measured in the same run:
 *
 * 1. Devices holding `GET /v1/requests?wait=60` open over TLS on one `paddock serve` (the control
 *    host of "TLS on one port", ECDSA P-256 certificates): the server's resident memory per held
 *    request above the idle server, against a bare `node:https` server with the same certificate,
 *    key and TLS profile holding the same requests (bench/held_baseline_server.ts), both on the
 *    server's V8 flags and malloc settings. The connections come from a child process
 *    (bench/hold_requests.ts), spread over 127.0.0.2 to 127.0.0.9.
 * 2. A collection to every held device by a label, created through `POST /api/v1/collections`:
 *    the p99 over the devices of (the device has its request − the creation was asked), on SQLite
 *    and on PostgreSQL.
 * 3. The same on PostgreSQL across two instances: held on one, created through the other.
 * 4. `createCollection` of 100,000 targets from a label on PostgreSQL, against a plain
 *    `INSERT … SELECT` of as many rows into a minimal table (a key and a body) of the same database.
 * 5. The admin's `GET /devices` and uploads while the requests are held, against the same server
 *    without them (the mean of before and after), p95 of each: rounds in turn, the median round.
 *
 * Alone: `node bench/collections.ts [--quick] [--held N] [--targets N] [--duration S] [--rounds N]
 * [--only TEXT] [--no-postgres] [--cpu-prof]`; `npm run bench` runs it too (`--only collections` for
 * these rows alone). `--quick`: 2,000 held devices and 20,000 targets instead of 10,000 and
 * 100,000, loads of 3 s instead of 5, one round of row 5 instead of 3.
 * Ten thousand TLS handshakes take one to two minutes on two shared cores, so a hold of 60 s is
 * asked again by its first devices before the last are connected: the child asks again at once.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { createCollection } from '../src/actions/collections.ts';
import { systemClock } from '../src/clock.ts';
import { secretHash } from '../src/crypto/random.ts';
import { WAKE_SLICE } from '../src/domain/collections.ts';
import { memoryLogger } from '../src/log/logger.ts';
import { openPostgresStore } from '../src/store/postgres/store.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import type { Store } from '../src/store/store.ts';
import { generateSelfSignedCertificate } from '../src/tls/self_signed.ts';
import { startBaselineServer } from './baseline.ts';
import { liveHeapMiB } from './young_generation.ts';
import { adminApiToken, benchLabels } from './dataset.ts';
import { cpuMicros, rssMiB } from './load.ts';
import { benchDatabase, withClient } from './postgres.ts';
import { printTable, type Row } from './report.ts';
import { type BenchServer, SERVER_ENV, SERVER_FLAGS, sessionCookie, startPaddock } from './server.ts';

/** What `--only` matches for every row here (each row's name starts with it). */
const COLLECTIONS = 'collections';

const ADMIN_HOST = 'admin.bench.test';
const CONTROL_HOST = 'control.bench.test';
/** Devices asked to hold once for a second before the idle server is measured (code paths loaded, not counted). */
const WARM_DEVICES = 100;
const UPLOADERS = 50;
/** The label every held device carries, and only they. */
const HELD_LABEL = { key: 'group', value: 'held' };

const names = (held: number, targets: number) => {
  const n = held.toLocaleString('en-US');
  return {
    memory: `${COLLECTIONS}: RSS per held request, ${n} held over TLS, vs node:https`,
    wakeSqlite: `${COLLECTIONS}: request p99 after creation, ${n} held, SQLite`,
    wakePostgres: `${COLLECTIONS}: request p99 after creation, ${n} held, PostgreSQL`,
    wakeTwo: `${COLLECTIONS}: request p99 after creation, ${n} held, PostgreSQL, created on a second instance`,
    create: `${COLLECTIONS}: createCollection of ${targets.toLocaleString('en-US')} targets from a label, PostgreSQL`,
    pages: `${COLLECTIONS}: GET /devices p95, admin, ${n} held / none`,
    uploads: `${COLLECTIONS}: PUT /v1/runs/{id} 1 KiB p95, ${n} held / none`,
  };
};

export interface CollectionsOptions {
  held: number;
  targets: number;
  duration: number;
  /** Rounds of pages and uploads with the requests held and without (row 5). */
  rounds: number;
  postgres: boolean;
  /** CPU profiles of the Paddock servers (bench/profiles), as `npm run bench -- --cpu-prof`. */
  cpuProf?: boolean | undefined;
  selected: (name: string) => boolean;
  log: (line: string) => void;
}

export async function collectionsBench(opts: CollectionsOptions): Promise<Row[]> {
  const n = names(opts.held, opts.targets);
  if (!Object.values(n).some(opts.selected)) return [];
  const rows: Row[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'paddock-bench-collections-'));
  try {
    const tls = await tlsFiles(dir);
    // A phase that fails (a timeout of the shared machine's database, say) is a row not met, and the
    // others still run.
    const phase = async (of: string[], work: () => Promise<Row[]>) => {
      const chosen = of.filter(opts.selected);
      if (chosen.length === 0) return;
      try {
        rows.push(...(await work()));
      } catch (err) {
        opts.log(`collections: failed: ${(err as Error).stack ?? String(err)}`);
        rows.push(...chosen.map((name) => failedRow(name, err as Error)));
      }
    };
    await phase([n.memory, n.wakeSqlite, n.pages, n.uploads], () => sqlitePhase({ ...opts, dir, tls, n }));
    if (opts.postgres) {
      await phase([n.wakePostgres, n.wakeTwo], () => postgresHeldPhase({ ...opts, dir, tls, n }));
      await phase([n.create], async () => [await createPhase({ ...opts, name: n.create })]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

function failedRow(name: string, err: Error): Row {
  return {
    name,
    requestsPerSecond: 0,
    p50: 0,
    p99: 0,
    non2xx: 0,
    ok: 0,
    errors: 1,
    peakRssMiB: 0,
    startRssMiB: 0,
    cpuMicrosPerRequest: 0,
    baselineRps: undefined,
    ratio: undefined,
    goal: `not measured: ${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`,
    met: false,
  };
}

// ---------------------------------------------------------------------------------------------
// The servers: TLS on one port, two names (README, "TLS on one port")

interface PemFiles {
  certPem: string;
  certFile: string;
  keyFile: string;
}

interface TlsFiles {
  admin: PemFiles;
  control: PemFiles;
}

async function tlsFiles(dir: string): Promise<TlsFiles> {
  const make = async (name: string): Promise<PemFiles> => {
    const pair = generateSelfSignedCertificate({
      commonName: name,
      dnsNames: [name],
      notBefore: new Date(Date.now() - 60_000),
      days: 7,
    });
    const certFile = join(dir, `${name}.crt`);
    const keyFile = join(dir, `${name}.key`);
    await writeFile(certFile, pair.certPem);
    await writeFile(keyFile, pair.keyPem);
    return { certPem: pair.certPem, certFile, keyFile };
  };
  return { admin: await make(ADMIN_HOST), control: await make(CONTROL_HOST) };
}

/** A port that was free a moment ago (the base URL must name it before the server listens). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

interface TlsPaddock extends BenchServer {
  port: number;
  metricsToken: string;
}

/** `paddock serve` with TLS on one port: the console on admin.bench.test, devices on control.bench.test. */
async function startTlsPaddock(tls: TlsFiles, env: Record<string, string>, cpuProf = false): Promise<TlsPaddock> {
  const port = await freePort();
  const metricsToken = randomBytes(24).toString('base64url');
  const server = await startPaddock(
    {
      PADDOCK_LISTEN: `127.0.0.1:${port}`,
      PADDOCK_BASE_URL: `https://${ADMIN_HOST}:${port}`,
      PADDOCK_CONTROL_HOST: CONTROL_HOST,
      PADDOCK_TLS_CERT: tls.admin.certFile,
      PADDOCK_TLS_KEY: tls.admin.keyFile,
      PADDOCK_CONTROL_TLS_CERT: tls.control.certFile,
      PADDOCK_CONTROL_TLS_KEY: tls.control.keyFile,
      PADDOCK_METRICS_TOKEN: metricsToken,
      PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
      ...env,
    },
    { cpuProf },
  );
  return { ...server, port, metricsToken };
}

/** One HTTPS request to 127.0.0.1 under a host name (SNI and Host), trusting that name's certificate. */
function httpsCall(
  port: number,
  host: string,
  ca: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: host,
        ca,
        method,
        path,
        agent: false,
        headers: { host: `${host}:${port}`, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

/** Requests held now by a Paddock instance (its metrics' gauge). */
async function heldOn(server: TlsPaddock, tls: TlsFiles): Promise<number> {
  const res = await httpsCall(server.port, ADMIN_HOST, tls.admin.certPem, 'GET', '/metrics', {
    authorization: `Bearer ${server.metricsToken}`,
  });
  return Number(/^paddock_requests_held (\d+)/m.exec(res.body)?.[1] ?? -1);
}

/** The JSON API of an instance: over TLS on the admin name, or plain HTTP on loopback (`base`). */
type Api = (method: string, path: string, json?: object) => Promise<{ status: number; body: Record<string, unknown> }>;

function tlsApi(port: number, tls: TlsFiles, token: string): Api {
  return async (method, path, json) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (json) headers['content-type'] = 'application/json';
    const res = await httpsCall(
      port,
      ADMIN_HOST,
      tls.admin.certPem,
      method,
      path,
      headers,
      json && JSON.stringify(json),
    );
    return { status: res.status, body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {} };
  };
}

function plainApi(base: string, token: string): Api {
  return async (method, path, json) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      ...(json ? { body: JSON.stringify(json) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
}

// ---------------------------------------------------------------------------------------------
// The devices: seeded in the store before the server starts, held from a child process

interface Seeded {
  held: string[];
  warm: string[];
  uploaders: string[];
  apiToken: string;
}

const credential = () => randomBytes(32).toString('base64url');

/** Through the store interface (enrollment copies the token's labels), so SQLite's indexes are its own. */
async function seedWithStore(store: Store, held: number, from: number): Promise<string[]> {
  const now = Date.now();
  const credentials: string[] = [];
  for (let i = from; i < from + held; i++) {
    const c = credential();
    await store.createEnrollToken({
      hash: `held-token-${i}`,
      owner: `oidc:account-${i % 100}`,
      createdBy: 'local:admin',
      createdAt: now,
      expiresAt: now + 1e12,
      labels: { [HELD_LABEL.key]: HELD_LABEL.value, serial: `n${i}` },
    });
    await store.enrollDevice({
      tokenHash: `held-token-${i}`,
      now,
      deviceId: `d_held${i}`,
      name: `held device ${i}`,
      credentialHash: secretHash(c),
    });
    credentials.push(c);
  }
  return credentials;
}

/** Devices without the held label: the warm-up's and the uploaders'. */
async function seedOthers(store: Store, prefix: string, count: number): Promise<string[]> {
  const now = Date.now();
  const credentials: string[] = [];
  for (let i = 0; i < count; i++) {
    const c = credential();
    await store.createEnrollToken({
      hash: `${prefix}-token-${i}`,
      owner: `oidc:${prefix}`,
      createdBy: 'local:admin',
      createdAt: now,
      expiresAt: now + 1e12,
    });
    await store.enrollDevice({
      tokenHash: `${prefix}-token-${i}`,
      now,
      deviceId: `d_${prefix}${i}`,
      name: `${prefix} ${i}`,
      credentialHash: secretHash(c),
    });
    credentials.push(c);
  }
  return credentials;
}

async function seedSqlite(dataDir: string, held: number): Promise<Seeded> {
  const store = openSqliteStore(dataDir);
  try {
    return {
      held: await seedWithStore(store, held, 0),
      warm: await seedOthers(store, 'warm', WARM_DEVICES),
      uploaders: await seedOthers(store, 'upload', UPLOADERS),
      apiToken: await adminApiToken(store),
    };
  } finally {
    await store.close();
  }
}

/** In bulk, as bench/postgres.ts fills its dataset: the devices and their labels by one statement each. */
async function seedPostgres(url: string, held: number): Promise<Seeded> {
  const credentials = Array.from({ length: held }, credential);
  await withClient(url, async (c) => {
    const now = Date.now();
    await c.query(
      `INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at)
       SELECT 'd_held' || (i - 1), 'held device ' || (i - 1), 'held device ' || (i - 1), 'oidc:account-' || (i % 100), h, $2::bigint, $2::bigint
       FROM unnest($1::text[]) WITH ORDINALITY AS t (h, i)`,
      [credentials.map((x) => secretHash(x)), now],
    );
    await c.query(
      `INSERT INTO device_labels (device_seq, key, value)
       SELECT d.seq, l.key, CASE l.key WHEN $1 THEN $2 ELSE 'n' || substr(d.id, 7) END
       FROM devices d CROSS JOIN (VALUES ($1), ('serial')) AS l (key) WHERE d.id LIKE 'd_held%'`,
      [HELD_LABEL.key, HELD_LABEL.value],
    );
    await c.query('VACUUM ANALYZE');
  });
  const store = await openPostgresStore(url);
  try {
    return {
      held: credentials,
      warm: await seedOthers(store, 'warm', WARM_DEVICES),
      uploaders: await seedOthers(store, 'upload', UPLOADERS),
      apiToken: await adminApiToken(store),
    };
  } finally {
    await store.close();
  }
}

interface AwaitAnswer {
  received: number;
  at: Array<number | null>;
  statuses: Record<string, number>;
  errors: number;
}

/** The child process holding the devices' requests (bench/hold_requests.ts). */
class Holder {
  private readonly lines: Interface;
  private readonly pending: Array<(line: string) => void> = [];
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private constructor(child: ChildProcessByStdio<Writable, Readable, null>) {
    this.child = child;
    this.lines = createInterface({ input: child.stdout });
    this.lines.on('line', (line) => this.pending.shift()?.(line));
  }

  static async start(
    dir: string,
    setup: { port: number; servername: string; ca: string; wait: number; reask: boolean; credentials: string[] },
  ): Promise<Holder> {
    const file = join(dir, `holder-${randomBytes(4).toString('hex')}.json`);
    await writeFile(file, JSON.stringify({ ...setup, host: `${setup.servername}:${setup.port}` }));
    const child = spawn(process.execPath, [new URL('./hold_requests.ts', import.meta.url).pathname, file], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    return new Holder(child);
  }

  private ask<T>(command: object): Promise<T> {
    return new Promise<T>((done) => {
      this.pending.push((line) => done(JSON.parse(line) as T));
      this.child.stdin.write(`${JSON.stringify(command)}\n`);
    });
  }

  /** Every device not holding asks; resolves when their connections are up. */
  hold(): Promise<{ sent: number; errors: number }> {
    return this.ask({ cmd: 'hold' });
  }

  /** Resolves when every device received a request (or any answer), or after `timeoutMs`. */
  awaitAll(what: 'request' | 'answer', timeoutMs: number): Promise<AwaitAnswer> {
    return this.ask({ cmd: 'await', what, timeoutMs });
  }

  /** From now on, `awaitAll` counts the answers' statuses and the failed connections. */
  async mark(): Promise<void> {
    await this.ask({ cmd: 'mark' });
  }

  /** Closes every connection, and the process exits. */
  async stop(): Promise<void> {
    this.child.stdin.end();
    if (this.child.exitCode === null) await once(this.child, 'exit');
  }
}

async function until(condition: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`collections bench: ${what} not within ${limitMs / 1000} s`);
    await sleep(200);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The resident memory once settled: the median of ten samples over 2 s, after `settleMs`. */
async function settledRssMiB(pid: number, settleMs = 2_000): Promise<number> {
  await sleep(settleMs);
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) {
    samples.push(rssMiB(pid));
    await sleep(200);
  }
  return quantile(samples, 0.5);
}

function quantile(values: number[], q: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

/**
 * What the hub's re-check of the held devices costs (src/collections/hub.ts, every 5 s while any is
 * held): `wakeRequests` over every held device, WAKE_SLICE at a time, the median of five, in ms. Closes the store.
 */
async function recheckMs(store: Store, count: number): Promise<number> {
  const ids = Array.from({ length: count }, (_, i) => `d_held${i}`);
  const times: number[] = [];
  try {
    for (let k = 0; k < 5; k++) {
      const t = process.hrtime.bigint();
      for (let i = 0; i < ids.length; i += WAKE_SLICE)
        await store.wakeRequests(ids.slice(i, i + WAKE_SLICE), Date.now(), 5);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  } finally {
    await store.close();
  }
  return quantile(times, 0.5);
}

/**
 * The database's rate of small commits through a pool of Paddock's default size (10): one-row
 * UPDATEs, each its own transaction, as `takeRequests` marks a woken device's requests delivered.
 * Commits a second, measured in the same run as the wake-ups it explains.
 */
async function commitRate(url: string, count: number): Promise<number> {
  await withClient(url, async (c) => {
    await c.query('CREATE TABLE bench_commits (k INTEGER PRIMARY KEY, v BIGINT NOT NULL)');
    await c.query('INSERT INTO bench_commits SELECT i, 0 FROM generate_series(0, $1::int - 1) AS i', [count]);
  });
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  try {
    await Promise.all(Array.from({ length: 10 }, () => pool.query('SELECT 1')));
    const t = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        pool.query('UPDATE bench_commits SET v = $1 WHERE k = $2', [Date.now(), i]),
      ),
    );
    return count / (Number(process.hrtime.bigint() - t) / 1e9);
  } finally {
    await pool.end();
    await withClient(url, (c) => c.query('DROP TABLE bench_commits'));
  }
}

// ---------------------------------------------------------------------------------------------
// Row 1: memory per held request

interface HeldMemory {
  idleMiB: number;
  heldMiB: number;
  perHeldKiB: number;
  openSeconds: number;
  cpuMicrosPerHold: number;
  liveHeapMiB: number;
}

/**
 * Warms the server with a hundred holds of a second (answered, connections closed), measures it idle,
 * then holds every device's request and measures it again. The holder is left running.
 */
async function measureHeld(opts: {
  dir: string;
  pid: number;
  port: number;
  tls: TlsFiles;
  seeded: Seeded;
  heldNow: () => Promise<number>;
  log: (line: string) => void;
  label: string;
}): Promise<{ memory: HeldMemory; holder: Holder }> {
  const setup = { port: opts.port, servername: CONTROL_HOST, ca: opts.tls.control.certPem };
  const warm = await Holder.start(opts.dir, { ...setup, wait: 1, reask: false, credentials: opts.seeded.warm });
  await warm.hold();
  const warmed = await warm.awaitAll('answer', 30_000);
  await warm.stop();
  if (warmed.received !== opts.seeded.warm.length)
    throw new Error(`${opts.label}: warm-up answered ${warmed.received}`);
  await until(async () => (await opts.heldNow()) === 0, 10_000, `${opts.label}: warm-up released`);
  const idleMiB = await settledRssMiB(opts.pid);
  const cpuBefore = cpuMicros(opts.pid);
  const started = Date.now();
  const holder = await Holder.start(opts.dir, { ...setup, wait: 60, reask: true, credentials: opts.seeded.held });
  const sent = await holder.hold();
  if (sent.errors > 0) throw new Error(`${opts.label}: ${sent.errors} connections failed`);
  const count = opts.seeded.held.length;
  await until(async () => (await opts.heldNow()) >= count, 120_000, `${opts.label}: ${count} held`);
  const openSeconds = (Date.now() - started) / 1000;
  const cpuMicrosPerHold = (cpuMicros(opts.pid) - cpuBefore) / count;
  const heldMiB = await settledRssMiB(opts.pid);
  // The heap left live with every request held (after a full collection): against the old
  // generation's cap, the margin that keeps a flood of held requests from ending the process.
  const liveHeap = await liveHeapMiB(opts.pid);
  const memory = {
    idleMiB,
    heldMiB,
    perHeldKiB: ((heldMiB - idleMiB) * 1024) / count,
    openSeconds,
    cpuMicrosPerHold,
    liveHeapMiB: liveHeap,
  };
  opts.log(
    `${opts.label}: idle ${idleMiB.toFixed(1)} MiB, ${count} held ${heldMiB.toFixed(1)} MiB: ${memory.perHeldKiB.toFixed(1)} KiB a held request (opened in ${openSeconds.toFixed(1)} s, ${cpuMicrosPerHold.toFixed(0)} µs of its CPU each), live heap ${liveHeap.toFixed(1)} MiB`,
  );
  return { memory, holder };
}

// ---------------------------------------------------------------------------------------------
// Row 2 and 3: from creation to every device's request

interface Wake {
  /** The holding server's CPU time from the creation to the last device's request, a device. */
  cpuMicros: number;
  p50: number;
  p99: number;
  max: number;
  createMs: number;
  received: number;
  perSecond: number;
  /** Asks answered other than 200 (then asked again after the client's back-off), and lost connections. */
  failed: number;
}

/**
 * Creates a collection to every held device by its label through `api`, and waits until each has
 * its request: each device's latency is from just before the creation was asked. Then cancels it,
 * so the devices can hold again.
 */
async function wake(
  api: Api,
  holder: Holder,
  pid: number,
  count: number,
  label: string,
  log: (line: string) => void,
): Promise<Wake> {
  await holder.mark();
  const cpuBefore = cpuMicros(pid);
  const asked = Date.now();
  const created = await api('POST', '/api/v1/collections', {
    filter: { label: [`${HELD_LABEL.key}=${HELD_LABEL.value}`] },
    privacy: 'full',
    reason: 'bench: wake-up latency',
  });
  const createMs = Date.now() - asked;
  if (created.status !== 201)
    throw new Error(`${label}: create answered ${created.status} ${JSON.stringify(created.body)}`);
  const answer = await holder.awaitAll('request', 120_000);
  const cpu = (cpuMicros(pid) - cpuBefore) / Math.max(1, answer.received);
  const latencies = answer.at.filter((t): t is number => t !== null).map((t) => t - asked);
  const last = Math.max(...latencies);
  const counts = created.body.counts as Record<string, number>;
  const result = {
    cpuMicros: cpu,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: last,
    createMs,
    received: answer.received,
    perSecond: answer.received / Math.max(0.001, last / 1000),
    failed:
      Object.entries(answer.statuses).reduce((sum, [status, k]) => sum + (status === '200' ? 0 : k), 0) + answer.errors,
  };
  log(
    `${label}: ${answer.received}/${count} devices had their request (collection of ${(counts.pending ?? 0) + (counts.delivered ?? 0)} open, ${counts.skipped} skipped, created in ${createMs} ms): p50 ${result.p50} ms, p99 ${result.p99} ms, last ${last} ms; server CPU ${cpu.toFixed(0)} µs a device; answers ${JSON.stringify(answer.statuses)}, errors ${answer.errors}`,
  );
  const cancelled = await api('POST', `/api/v1/collections/${String(created.body.id)}/cancel`);
  if (cancelled.status !== 200) throw new Error(`${label}: cancel answered ${cancelled.status}`);
  return result;
}

function wakeRow(name: string, w: Wake, count: number, rss: number, note = ''): Row {
  return {
    name,
    requestsPerSecond: w.perSecond,
    p50: w.p50,
    p99: w.p99,
    non2xx: 0,
    ok: w.received,
    errors: count - w.received,
    peakRssMiB: rss,
    startRssMiB: rss,
    cpuMicrosPerRequest: w.cpuMicros,
    baselineRps: undefined,
    ratio: undefined,
    goal: `p99 ≤ 2000 ms from the creation asked (${w.received} of ${count} devices had it; last ${w.max} ms; the creation itself ${w.createMs} ms; ${w.failed} asks failed and were asked again after the client's back-off; req/s = devices answered a second, CPU µs/req = the holding server's CPU a device${note})`,
    met: w.p99 <= 2000 && w.received === count,
  };
}

// ---------------------------------------------------------------------------------------------
// Row 5: pages and uploads while the requests are held

interface Latency {
  p50: number;
  p95: number;
  p99: number;
  requestsPerSecond: number;
  non2xx: number;
  errors: number;
  ok: number;
  cpuMicrosPerRequest: number;
}

/** autocannon over TLS with every response's time kept, for p95 (autocannon's own percentiles have none). */
async function latencyLoad(pid: number, opts: autocannon.Options): Promise<Latency> {
  const times: number[] = [];
  const cpuBefore = cpuMicros(pid);
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(opts, (err, res) => (err ? fail(err as Error) : done(res)));
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  return {
    p50: quantile(times, 0.5),
    p95: quantile(times, 0.95),
    p99: quantile(times, 0.99),
    requestsPerSecond: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ok: result['2xx'],
    cpuMicrosPerRequest: (cpuMicros(pid) - cpuBefore) / Math.max(1, result.requests.total),
  };
}

function pageLoad(server: TlsPaddock, cookie: string, duration: number): Promise<Latency> {
  return latencyLoad(server.pid, {
    url: `https://127.0.0.1:${server.port}/devices`,
    servername: ADMIN_HOST,
    connections: 10,
    duration,
    headers: { host: `${ADMIN_HOST}:${server.port}`, cookie },
  });
}

function uploadLoad(server: TlsPaddock, credentials: string[], duration: number, prefix: string): Promise<Latency> {
  const payload = Buffer.alloc(1024, 'u');
  let sequence = 0;
  return latencyLoad(server.pid, {
    url: `https://127.0.0.1:${server.port}`,
    servername: CONTROL_HOST,
    connections: 10,
    duration,
    requests: [
      {
        method: 'PUT',
        setupRequest: (req, ctx: object) => {
          const context = ctx as { credential?: string };
          context.credential ??= credentials[sequence % credentials.length];
          return {
            ...req,
            path: `/v1/runs/${prefix}-${sequence++}`,
            headers: {
              host: `${CONTROL_HOST}:${server.port}`,
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
}

function meanLatency(a: Latency, b: Latency): Latency {
  const m = (x: number, y: number) => (x + y) / 2;
  return {
    p50: m(a.p50, b.p50),
    p95: m(a.p95, b.p95),
    p99: m(a.p99, b.p99),
    requestsPerSecond: m(a.requestsPerSecond, b.requestsPerSecond),
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
    ok: a.ok + b.ok,
    cpuMicrosPerRequest: m(a.cpuMicrosPerRequest, b.cpuMicrosPerRequest),
  };
}

interface Loads {
  pages: Latency | undefined;
  uploads: Latency | undefined;
}

/**
 * The round with the median ratio of p95 (held ÷ none, none the mean of the loads before and
 * after it); the goal holds when that median does and nothing failed in any round.
 */
function underHoldRow(
  name: string,
  rounds: Array<{ held: Latency; none: Latency; around: number[] }>,
  rss: number,
): Row {
  const ratioOf = (r: { held: Latency; none: Latency }) => r.held.p95 / Math.max(r.none.p95, 0.001);
  const sorted = rounds.toSorted((a, b) => ratioOf(a) - ratioOf(b));
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!median) throw new Error(`${name}: no round`);
  const { held, none } = median;
  const ratio = ratioOf(median);
  const failures = rounds.reduce((sum, r) => sum + r.held.non2xx + r.held.errors + r.none.non2xx + r.none.errors, 0);
  const each = rounds
    .map(
      (r) =>
        `${ratioOf(r).toFixed(2)} (${r.held.p95.toFixed(1)} against ${r.around.map((x) => x.toFixed(1)).join(' and ')} ms)`,
    )
    .join(', ');
  return {
    name,
    requestsPerSecond: held.requestsPerSecond,
    p50: Math.round(held.p50 * 10) / 10,
    p99: Math.round(held.p99 * 10) / 10,
    non2xx: held.non2xx,
    ok: held.ok,
    errors: held.errors,
    peakRssMiB: rss,
    startRssMiB: rss,
    cpuMicrosPerRequest: held.cpuMicrosPerRequest,
    baselineRps: none.requestsPerSecond,
    ratio,
    baselineCpuMicros: none.cpuMicrosPerRequest,
    cpuRatio: none.cpuMicrosPerRequest / Math.max(1, held.cpuMicrosPerRequest),
    goal: `p95 ratio ≤ 1.5 (held ÷ none; ${rounds.length > 1 ? `median of ${rounds.length} rounds: ` : ''}${each}; none = the mean of the loads before and after; 10 connections)`,
    met: ratio <= 1.5 && failures === 0,
  };
}

// ---------------------------------------------------------------------------------------------
// The SQLite phase: rows 1, 2 (SQLite) and 5

async function sqlitePhase(ctx: CollectionsOptions & { dir: string; tls: TlsFiles; n: ReturnType<typeof names> }) {
  const { log, tls, n } = ctx;
  const rows: Row[] = [];
  const dataDir = join(ctx.dir, 'sqlite');
  let started = Date.now();
  const seeded = await seedSqlite(dataDir, ctx.held);
  log(
    `collections: ${ctx.held} labelled devices enrolled on SQLite in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const count = seeded.held.length;
  log(
    `collections: the hub's re-check of ${count} held devices (wakeRequests, every 5 s) takes ${(await recheckMs(openSqliteStore(dataDir), count)).toFixed(1)} ms on SQLite`,
  );
  const key = randomBytes(32);
  const env = { PADDOCK_DATA_DIR: dataDir, PADDOCK_SESSION_KEYS: key.toString('base64') };

  // Row 1's baseline: a bare node:https server with the control certificate, holding the same requests,
  // on the server's V8 and malloc settings: the row compares what a held request costs, not settings.
  if (ctx.selected(n.memory)) {
    const baseline = await startBaselineServer(
      new URL('./held_baseline_server.ts', import.meta.url).pathname,
      [tls.control.certFile, tls.control.keyFile],
      { flags: SERVER_FLAGS, env: SERVER_ENV },
    );
    const port = Number(new URL(baseline.url).port);
    let bare: HeldMemory;
    try {
      const heldNow = async () =>
        Number((await httpsCall(port, CONTROL_HOST, tls.control.certPem, 'GET', '/held', {})).body);
      const measured = await measureHeld({
        ...ctx,
        pid: baseline.pid,
        port,
        seeded,
        heldNow,
        label: 'node:https baseline',
      });
      bare = measured.memory;
      await measured.holder.stop();
    } finally {
      await baseline.stop();
    }

    // Row 1 and row 2 on SQLite: a fresh server, measured idle, then holding every device's request.
    const server = await startTlsPaddock(tls, env, ctx.cpuProf);
    try {
      const heldNow = () => heldOn(server, tls);
      const { memory, holder } = await measureHeld({
        ...ctx,
        pid: server.pid,
        port: server.port,
        seeded,
        heldNow,
        label: 'paddock serve',
      });
      try {
        const ratio = memory.perHeldKiB / bare.perHeldKiB;
        rows.push({
          name: n.memory,
          requestsPerSecond: count / memory.openSeconds,
          p50: 0,
          p99: 0,
          non2xx: 0,
          ok: count,
          errors: 0,
          peakRssMiB: memory.heldMiB,
          startRssMiB: memory.idleMiB,
          cpuMicrosPerRequest: memory.cpuMicrosPerHold,
          baselineRps: count / bare.openSeconds,
          ratio,
          baselineCpuMicros: bare.cpuMicrosPerHold,
          cpuRatio: bare.cpuMicrosPerHold / Math.max(1, memory.cpuMicrosPerHold),
          goal: `RSS a held request ≤ 1.25 × node:https (${memory.perHeldKiB.toFixed(1)} KiB: ${memory.idleMiB.toFixed(0)} → ${memory.heldMiB.toFixed(0)} MiB, against ${bare.perHeldKiB.toFixed(1)} KiB: ${bare.idleMiB.toFixed(0)} → ${bare.heldMiB.toFixed(0)} MiB; live heap with all held ${memory.liveHeapMiB.toFixed(0)} MiB; req/s = holds opened a second, CPU µs a hold opened)`,
          met: ratio <= 1.25,
        });
        if (ctx.selected(n.wakeSqlite)) {
          const api = tlsApi(server.port, tls, seeded.apiToken);
          const w = await wake(api, holder, server.pid, count, 'SQLite', log);
          rows.push(wakeRow(n.wakeSqlite, w, count, rssMiB(server.pid)));
        }
      } finally {
        await holder.stop();
      }
    } finally {
      await server.stop();
    }
  } else if (ctx.selected(n.wakeSqlite)) {
    const server = await startTlsPaddock(tls, env, ctx.cpuProf);
    try {
      const holder = await Holder.start(ctx.dir, {
        port: server.port,
        servername: CONTROL_HOST,
        ca: tls.control.certPem,
        wait: 60,
        reask: true,
        credentials: seeded.held,
      });
      try {
        await holder.hold();
        await until(async () => (await heldOn(server, tls)) >= count, 120_000, `${count} held`);
        const w = await wake(tlsApi(server.port, tls, seeded.apiToken), holder, server.pid, count, 'SQLite', log);
        rows.push(wakeRow(n.wakeSqlite, w, count, rssMiB(server.pid)));
      } finally {
        await holder.stop();
      }
    } finally {
      await server.stop();
    }
  }

  // Row 5: a fresh server; pages and uploads with none held and with every request held, in turn:
  // none, held, none, held… none. Each round's held loads are compared with the none loads on either
  // side of them (their mean), and the row is the round with the median ratio.
  if (ctx.selected(n.pages) || ctx.selected(n.uploads)) {
    const cookie = await sessionCookie(key, 'local:admin', true, dataDir);
    const server = await startTlsPaddock(tls, env, ctx.cpuProf);
    try {
      let prefix = 0;
      const measure = async (duration: number): Promise<Loads> => {
        const pages = ctx.selected(n.pages) ? await pageLoad(server, cookie, duration) : undefined;
        const uploads = ctx.selected(n.uploads)
          ? await uploadLoad(server, seeded.uploaders, duration, `held-${prefix++}`)
          : undefined;
        return { pages, uploads };
      };
      const say = (what: string, m: Loads) =>
        log(
          `collections: ${what}: GET /devices p95 ${m.pages?.p95.toFixed(1) ?? '–'} ms (${m.pages?.requestsPerSecond.toFixed(0) ?? '–'}/s), uploads p95 ${m.uploads?.p95.toFixed(1) ?? '–'} ms (${m.uploads?.requestsPerSecond.toFixed(0) ?? '–'}/s)`,
        );
      // Each kind of request for 2 s, not counted, so the first measured load does not compile code.
      await measure(2);
      const none = [await measure(ctx.duration)];
      say('none held', none[0] as Loads);
      const held: Loads[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const holder = await Holder.start(ctx.dir, {
          port: server.port,
          servername: CONTROL_HOST,
          ca: tls.control.certPem,
          wait: 60,
          reask: true,
          credentials: seeded.held,
        });
        try {
          started = Date.now();
          await holder.hold();
          await until(async () => (await heldOn(server, tls)) >= count, 180_000, `${count} held`);
          log(`collections: ${count} held in ${((Date.now() - started) / 1000).toFixed(1)} s`);
          await sleep(1_000);
          held.push(await measure(ctx.duration));
          say(`${count} held`, held.at(-1) as Loads);
          const still = await heldOn(server, tls);
          if (still < count) log(`collections: only ${still} still held after the loads`);
          // Released by a collection to all of them (another wake-up on SQLite, reported in the log).
          await wake(
            tlsApi(server.port, tls, seeded.apiToken),
            holder,
            server.pid,
            count,
            `SQLite, after the loads of round ${round + 1}`,
            log,
          );
        } finally {
          await holder.stop();
        }
        await until(async () => (await heldOn(server, tls)) === 0, 10_000, 'every hold released');
        await sleep(1_000);
        log(`collections: RSS ${rssMiB(server.pid).toFixed(0)} MiB once every hold of round ${round + 1} was released`);
        none.push(await measure(ctx.duration));
        say('none held', none.at(-1) as Loads);
      }
      const rss = rssMiB(server.pid);
      for (const kind of ['pages', 'uploads'] as const) {
        const rounds = held.flatMap((h, i) => {
          const d = h[kind];
          const b = none[i]?.[kind];
          const a = none[i + 1]?.[kind];
          return d && b && a ? [{ held: d, none: meanLatency(b, a), around: [b.p95, a.p95] }] : [];
        });
        if (rounds.length === 0) continue;
        rows.push(underHoldRow(kind === 'pages' ? n.pages : n.uploads, rounds, rss));
      }
    } finally {
      await server.stop();
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The PostgreSQL phase of held requests: rows 2 (PostgreSQL) and 3

async function postgresHeldPhase(
  ctx: CollectionsOptions & { dir: string; tls: TlsFiles; n: ReturnType<typeof names> },
): Promise<Row[]> {
  const { log, tls, n } = ctx;
  let database;
  try {
    database = await benchDatabase();
  } catch (err) {
    log(`collections: PostgreSQL rows skipped: ${(err as Error).message}`);
    return [];
  }
  const rows: Row[] = [];
  try {
    // The schema through the store's migrations, then the devices in bulk.
    await (await openPostgresStore(database.url)).close();
    const started = Date.now();
    const seeded = await seedPostgres(database.url, ctx.held);
    log(`collections: ${ctx.held} labelled devices on PostgreSQL in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const count = seeded.held.length;
    log(
      `collections: the hub's re-check of ${count} held devices (wakeRequests, every 5 s) takes ${(await recheckMs(await openPostgresStore(database.url), count)).toFixed(1)} ms on PostgreSQL`,
    );
    const commits = await commitRate(database.url, count);
    log(`collections: the database commits ${commits.toFixed(0)} one-row UPDATEs a second through a pool of 10`);
    const commitNote = `; the database's one-row commits through a pool of 10 in this run: ${commits.toFixed(0)} a second`;
    const env = { PADDOCK_DATABASE_URL: database.url };
    const holding = await startTlsPaddock(tls, env, ctx.cpuProf);
    // The second instance, on the same database: only its API is used.
    const other = ctx.selected(n.wakeTwo)
      ? await startPaddock({ ...env, PADDOCK_ADMIN_PASSWORD: 'bench password 1234' })
      : undefined;
    try {
      const holder = await Holder.start(ctx.dir, {
        port: holding.port,
        servername: CONTROL_HOST,
        ca: tls.control.certPem,
        wait: 60,
        reask: true,
        credentials: seeded.held,
      });
      try {
        const hold = async () => {
          const t = Date.now();
          await holder.hold();
          await until(async () => (await heldOn(holding, tls)) >= count, 120_000, `${count} held on PostgreSQL`);
          log(`collections: ${count} held on PostgreSQL in ${((Date.now() - t) / 1000).toFixed(1)} s`);
          await sleep(1_000);
        };
        if (ctx.selected(n.wakePostgres)) {
          await hold();
          const w = await wake(
            tlsApi(holding.port, tls, seeded.apiToken),
            holder,
            holding.pid,
            count,
            'PostgreSQL',
            log,
          );
          rows.push(wakeRow(n.wakePostgres, w, count, rssMiB(holding.pid), commitNote));
        }
        if (other) {
          await hold();
          const w = await wake(
            plainApi(other.base, seeded.apiToken),
            holder,
            holding.pid,
            count,
            'PostgreSQL, two instances',
            log,
          );
          rows.push(wakeRow(n.wakeTwo, w, count, rssMiB(holding.pid), commitNote));
        }
      } finally {
        await holder.stop();
      }
    } finally {
      await other?.stop();
      await holding.stop();
    }
  } finally {
    await database.drop();
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Row 4: createCollection of 100,000 targets from a filter, on PostgreSQL

async function createPhase(ctx: CollectionsOptions & { name: string }): Promise<Row> {
  const { log } = ctx;
  const database = await benchDatabase();
  try {
    const store = await openPostgresStore(database.url);
    try {
      const started = Date.now();
      // The devices and their five labels (bench/dataset.ts benchLabels), in bulk as bench/postgres.ts does.
      await withClient(database.url, async (c) => {
        await c.query(
          `INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at)
           SELECT 'd_bench' || i, 'bench device ' || i, 'bench device ' || i, 'oidc:account-' || (i % 1000),
             'bench-cred-' || i, $2::bigint + i, $2::bigint + i
           FROM generate_series(0, $1 - 1) AS i`,
          [ctx.targets, Date.now() - 86_400_000],
        );
        const labels = Object.keys(benchLabels(0));
        await c.query(
          `INSERT INTO device_labels (device_seq, key, value)
           SELECT d.seq, l.key, CASE l.key WHEN 'fleet' THEN 'main' WHEN 'site' THEN 's' || (n % 10)
             WHEN 'line' THEN 'l' || (n % 100) WHEN 'rack' THEN 'r' || (n % 1000) ELSE 'n' || n END
           FROM (SELECT seq, substr(id, 8)::int AS n FROM devices) AS d
           CROSS JOIN unnest($1::text[]) AS l (key)`,
          [labels],
        );
        await c.query('VACUUM ANALYZE');
      });
      log(
        `collections: ${ctx.targets} labelled devices on PostgreSQL in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      const deps = { store, logger: memoryLogger(), clock: systemClock };
      const actor = { subject: 'local:admin', admin: true, client: null };
      const rounds: Array<{ create: number; plain: number; joined: number }> = [];
      for (let round = 0; round < 3; round++) {
        // The baselines: a plain INSERT … SELECT of as many rows into a minimal table (a key and a
        // body), and the same from the label's devices (the same rows the collection reaches).
        const timed = (sql: string, params: unknown[] = []) =>
          withClient(database.url, async (c) => {
            await c.query('DROP TABLE IF EXISTS bench_minimal');
            await c.query('CREATE TABLE bench_minimal (k BIGINT PRIMARY KEY, body TEXT NOT NULL)');
            const t = process.hrtime.bigint();
            await c.query(sql, params);
            const ms = Number(process.hrtime.bigint() - t) / 1e6;
            await c.query('DROP TABLE bench_minimal');
            return ms;
          });
        const plain = await timed(
          "INSERT INTO bench_minimal (k, body) SELECT i, 'pending' FROM generate_series(1, $1::int) AS i",
          [ctx.targets],
        );
        const joined = await timed(
          `INSERT INTO bench_minimal (k, body) SELECT seq, id FROM devices
           WHERE seq IN (SELECT device_seq FROM device_labels WHERE key = 'fleet' AND value = 'main')`,
        );
        const t = process.hrtime.bigint();
        const out = await createCollection(deps, actor, {
          privacy: 'full',
          reason: 'bench: a collection from a label',
          scope: { filter: { labels: [{ key: 'fleet', value: 'main' }], staleBefore: 0 } },
        });
        const create = Number(process.hrtime.bigint() - t) / 1e6;
        if (!out.ok) throw new Error(`createCollection: ${out.failure}`);
        if (out.collection.counts.pending !== ctx.targets)
          throw new Error(`createCollection reached ${out.collection.counts.pending} of ${ctx.targets}`);
        log(
          `collections: round ${round + 1}: createCollection of ${ctx.targets} targets ${create.toFixed(0)} ms; INSERT … SELECT into a minimal table ${plain.toFixed(0)} ms, from the label's devices ${joined.toFixed(0)} ms`,
        );
        rounds.push({ create, plain, joined });
        // Cancelled, so that each round meets devices with nothing open, as the first did.
        await store.cancelCollection(actor, out.collection.id, Date.now());
        await withClient(database.url, (c) => c.query('VACUUM ANALYZE collection_targets'));
      }
      const median = rounds.toSorted((a, b) => a.create - b.create)[1] ?? rounds[0];
      if (!median) throw new Error('no round');
      const ratio = median.create / median.plain;
      return {
        name: ctx.name,
        requestsPerSecond: ctx.targets / (median.create / 1000),
        p50: Math.round(median.create),
        p99: Math.round(Math.max(...rounds.map((r) => r.create))),
        non2xx: 0,
        ok: ctx.targets,
        errors: 0,
        peakRssMiB: 0,
        startRssMiB: 0,
        cpuMicrosPerRequest: 0,
        baselineRps: ctx.targets / (median.plain / 1000),
        ratio,
        goal: `< 5000 ms (median of 3 rounds: ${rounds.map((r) => r.create.toFixed(0)).join(', ')} ms; ratio = time ÷ a plain INSERT … SELECT of ${ctx.targets} rows into a minimal table, ${rounds.map((r) => r.plain.toFixed(0)).join(', ')} ms; from the label's devices ${rounds.map((r) => r.joined.toFixed(0)).join(', ')} ms; req/s = targets a second)`,
        met: median.create < 5000,
      };
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      held: { type: 'string' },
      targets: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      only: { type: 'string' },
      'no-postgres': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const rows = await collectionsBench({
    held: Number(values.held ?? (values.quick ? 2_000 : 10_000)),
    targets: Number(values.targets ?? (values.quick ? 20_000 : 100_000)),
    duration: Number(values.duration ?? (values.quick ? 3 : 5)),
    rounds: Number(values.rounds ?? (values.quick ? 1 : 3)),
    postgres: !values['no-postgres'],
    cpuProf: values['cpu-prof'],
    selected: (name) => values.only === undefined || name.includes(values.only),
    log: (line) => process.stderr.write(`bench: ${line}\n`),
  });
  printTable(rows);
}
