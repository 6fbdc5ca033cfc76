/**
 * Issue 42, "the heap holds" (docs/contract.md section 23): `node bench/heap_holds.ts` runs alone
 * and writes its section of bench/results.md (`--quick`: smaller counts, printed, not written).
 *
 * 1. The heap a connection costs, by kind, on a real `paddock serve` with `npm start`'s V8 flags:
 *    `count` connections of one kind at a time (test/hostile/stall_bodies.ts, in a process of its
 *    own, over 16 loopback addresses), the live heap read through the inspector after a full
 *    collection before and while they are held. Kinds: idle (connected, nothing sent), a device's
 *    request held over TLS, and bodies stalled after 60 KiB of the 64 KiB they declare on
 *    `/v1/enroll` (TLS), `/login` and `/oidc/backchannel-logout`. The connection ceiling that
 *    follows for the default heap is src/server/connections.ts's, from that heap's limit.
 * 2. 5,000 bodies stalled on those three routes under `--max-old-space-size=64`, over 32 loopback
 *    addresses: the process stays alive; a device's upload p95 and the break-glass admin's sign-in,
 *    during them against the same server without them (the mean of just before and just after),
 *    in rounds (three; the median round's ratio).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { secretHash } from '../src/crypto/random.ts';
import { CONNECTION_HEAP_COST, connectionCeiling } from '../src/server/connections.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import { rssMiB } from './load.ts';
import { writeSection } from './report.ts';
import { SERVER_FLAGS, startPaddock } from './server.ts';
import { type StallKind, stall } from './stall.ts';
import { heapAfterCollection } from './young_generation.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    /** Connections of each kind for the cost table. */
    count: { type: 'string' },
    /** Bodies stalled under the small heap. */
    stalled: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const quick = values.quick;
const COUNT = Number(values.count ?? (quick ? 500 : 2_000));
const STALLED = Number(values.stalled ?? (quick ? 2_000 : 5_000));
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 3));
const SMALL_HEAP = ['--max-semi-space-size=8', '--max-old-space-size=64'];
const PASSWORD = 'bench heap password';
// The test suite's fake OpenID provider, in a process of its own (bench/ imports nothing from test/).
const PROVIDER = new URL('../test/support/fake_oidc_provider.ts', import.meta.url).pathname;

/** The fake provider in a child process: its issuer and client, until `stop`. */
async function startProvider() {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { startFakeProvider } = await import(${JSON.stringify(PROVIDER)});
       const p = await startFakeProvider();
       process.stdout.write(JSON.stringify({ issuer: p.issuer, clientId: p.clientId, clientSecret: p.clientSecret }) + '\\n');
       process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const provider = JSON.parse(line) as { issuer: string; clientId: string; clientSecret: string };
  return {
    ...provider,
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}
const log = (line: string) => process.stderr.write(`heap holds: ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` devices put in the store before the server starts, as bench/collections.ts does. */
async function seedDevices(dataDir: string, count: number): Promise<string[]> {
  const store = openSqliteStore(dataDir);
  const now = Date.now();
  const credentials: string[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const credential = randomBytes(32).toString('base64url');
      await store.createEnrollToken({
        hash: `heap-token-${i}`,
        owner: 'local:admin',
        createdBy: 'local:admin',
        createdAt: now,
        expiresAt: now + 1e12,
      });
      await store.enrollDevice({
        tokenHash: `heap-token-${i}`,
        now,
        deviceId: `d_heap${i}`,
        name: `heap device ${i}`,
        credentialHash: secretHash(credential),
      });
      credentials.push(credential);
    }
  } finally {
    await store.close();
  }
  return credentials;
}

/** The heap's limit under V8 flags, as the server's `v8.getHeapStatistics()` reads it. */
async function heapLimit(flags: readonly string[]): Promise<number> {
  const child = spawn(
    process.execPath,
    [...flags, '-e', 'process.stdout.write(String(require("v8").getHeapStatistics().heap_size_limit))'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  await once(child, 'exit');
  return Number(out);
}

/** One request over a connection of its own: its status and time in ms (0 when the connection failed). */
function timed(
  port: number,
  path: string,
  opts: { method: string; headers: Record<string, string>; body: string },
): Promise<{ status: number; ms: number; headers: Record<string, string | string[] | undefined> }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, ...opts }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, headers: res.headers }),
      );
      res.on('error', () => resolve({ status: 0, ms: performance.now() - started, headers: {} }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, headers: {} }));
    req.end(opts.body);
  });
}

const p95 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(0.95 * ms.length) - 1] ?? Infinity;
const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? Infinity;

/** A device's uploads one after another, and the admin's sign-ins: their p95 and median, and failures. */
async function deviceAndAdmin(port: number, credential: string, prefix: string, uploads: number, signIns: number) {
  const up: number[] = [];
  const ins: number[] = [];
  const failed: string[] = [];
  for (let i = 0; i < uploads; i++) {
    const r = await timed(port, `/v1/runs/${prefix}-${i}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full', 'content-type': 'text/plain' },
      body: `run ${i} of a device among stalled bodies\n`.repeat(20),
    });
    if (r.status === 201) up.push(r.ms);
    else failed.push(`upload ${r.status}`);
  }
  for (let i = 0; i < signIns; i++) {
    const r = await timed(port, '/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: PASSWORD }).toString(),
    });
    if (r.status === 303 && String(r.headers['set-cookie'] ?? '').includes('=')) ins.push(r.ms);
    else failed.push(`sign-in ${r.status}`);
  }
  return { uploadP95: p95(up), signInMedian: median(ins), failed };
}

/** A port for a server, as bench/server.ts picks one (the server's base URL must name it). */
const freePort = () => 20_000 + Math.floor(Math.random() * 20_000);

const dir = await mkdtemp(join(tmpdir(), 'paddock-heap-'));
const provider = await startProvider();
try {
  const dataDir = join(dir, 'data');
  const credentials = await seedDevices(dataDir, COUNT + 1);
  const uploader = credentials.pop() ?? '';
  const env = (port: number) => ({
    PADDOCK_LISTEN: `127.0.0.1:${port}`,
    PADDOCK_DATA_DIR: dataDir,
    PADDOCK_ADMIN_PASSWORD: PASSWORD,
    PADDOCK_BASE_URL: `http://127.0.0.1:${port}`,
    PADDOCK_OIDC_ISSUER: provider.issuer,
    PADDOCK_OIDC_CLIENT_ID: provider.clientId,
    PADDOCK_OIDC_CLIENT_SECRET: provider.clientSecret,
  });

  // 1. The heap a connection costs, by kind, under the default heap.
  const port = freePort();
  const server = await startPaddock(env(port));
  const kinds: Array<{ kind: StallKind; name: string }> = [
    { kind: 'idle', name: 'idle (connected, nothing sent)' },
    { kind: 'held', name: "a device's request held over TLS (`GET /v1/requests?wait=60`)" },
    { kind: 'enroll', name: 'a body in flight on `POST /v1/enroll` over TLS' },
    { kind: 'login', name: 'a body in flight on `POST /login`' },
    { kind: 'backchannel', name: 'a body in flight on `POST /oidc/backchannel-logout`' },
  ];
  const costs: Array<{ name: string; kib: number; open: number; rssKib: number }> = [];
  await heapAfterCollection(server.pid);
  for (const { kind, name } of kinds) {
    const before = await heapAfterCollection(server.pid);
    const rssBefore = rssMiB(server.pid);
    const staller = await stall({ port, addresses: 16, sent: 61_440, groups: [{ kind, count: COUNT }], credentials });
    await sleep(1_000);
    const held = await staller.report();
    const during = await heapAfterCollection(server.pid);
    const rssDuring = rssMiB(server.pid);
    await staller.stop();
    const kib = ((during.usedMiB - before.usedMiB) * 1024) / held.open;
    costs.push({ name, kib, open: held.open, rssKib: ((rssDuring - rssBefore) * 1024) / held.open });
    log(`${name}: ${kib.toFixed(1)} KiB of heap each (${held.open} open, answered ${JSON.stringify(held.answered)})`);
    await sleep(2_000);
  }
  await server.stop();
  const defaultLimit = await heapLimit(SERVER_FLAGS);
  const smallLimit = await heapLimit(SMALL_HEAP);

  // 2. Bodies stalled by the thousand under a 64 MiB heap, in rounds: the device and the admin just
  // before, during and just after each, so a busy stretch of the shared machine weighs on one round.
  const smallPort = freePort();
  const small = await startPaddock(env(smallPort), { flags: SMALL_HEAP });
  const uploads = quick ? 40 : 100;
  const signIns = quick ? 3 : 5;
  await deviceAndAdmin(smallPort, uploader, 'warm', uploads, 1);
  const third = Math.floor(STALLED / 3);
  const rounds: Array<{
    upload: number;
    signIn: number;
    during: Awaited<ReturnType<typeof deviceAndAdmin>>;
    without: { uploadP95: number; signInMedian: number };
    opened: number;
    kept: number;
    heapMiB: number;
  }> = [];
  let alive = true;
  for (let round = 0; round < ROUNDS && alive; round++) {
    const before = await deviceAndAdmin(smallPort, uploader, `before${round}`, uploads, signIns);
    const staller = await stall({
      port: smallPort,
      addresses: 32,
      sent: 32_768,
      groups: [
        { kind: 'enroll', count: STALLED - 2 * third },
        { kind: 'login', count: third },
        { kind: 'backchannel', count: third },
      ],
    });
    const opened = await staller.report();
    const during = await deviceAndAdmin(smallPort, uploader, `during${round}`, uploads, signIns);
    const still = await staller.report();
    const heap = await heapAfterCollection(small.pid);
    alive =
      (await fetch(`http://127.0.0.1:${smallPort}/healthz`).then(
        (r) => r.status,
        () => 0,
      )) === 200;
    await staller.stop();
    await sleep(2_000);
    const after = await deviceAndAdmin(smallPort, uploader, `after${round}`, uploads, signIns);
    // Without them: the mean of just before and just after, as bench/collections.ts does.
    const without = {
      uploadP95: (before.uploadP95 + after.uploadP95) / 2,
      signInMedian: (before.signInMedian + after.signInMedian) / 2,
    };
    rounds.push({
      upload: during.uploadP95 / without.uploadP95,
      signIn: during.signInMedian / without.signInMedian,
      during,
      without,
      opened: opened.opened,
      kept: Math.min(opened.open, still.open),
      heapMiB: heap.usedMiB,
    });
    log(`round ${round}: ${JSON.stringify(rounds.at(-1))}`);
  }
  await small.stop();
  const byUpload = [...rounds].sort((x, y) => x.upload - y.upload)[Math.floor(rounds.length / 2)];
  const bySignIn = [...rounds].sort((x, y) => x.signIn - y.signIn)[Math.floor(rounds.length / 2)];
  const failed = rounds.flatMap((r) => r.during.failed);

  const ceilingDefault = connectionCeiling(defaultLimit);
  const ceilingSmall = connectionCeiling(smallLimit);
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const lines = [
    '## Issue 42: the heap holds',
    '',
    `\`node bench/heap_holds.ts\`, ${new Date().toISOString().slice(0, 10)} (\`npm run bench\` runs it last).`,
    `A real \`paddock serve\` (SQLite, plain HTTP on loopback, devices in TLS on the same port, OIDC configured with the`,
    `test suite's fake provider so the back-channel route reads its bodies). The connections come from a process of`,
    `their own (test/hostile/stall_bodies.ts), ${COUNT.toLocaleString('en')} of one kind at a time over 16 loopback addresses;`,
    `each body declares 64 KiB and sends 60 KiB before it stalls. The heap is read through the inspector after a full`,
    `collection, before and while they are held. The machine's two cores were shared with other sessions' tests.`,
    '',
    '| connection | heap each | RSS each | held open |',
    '|---|---:|---:|---:|',
    ...costs.map((c) => `| ${c.name} | ${c.kib.toFixed(1)} KiB | ${c.rssKib.toFixed(0)} KiB | ${c.open} |`),
    '',
    `- The costliest measured: ${Math.max(...costs.map((c) => c.kib)).toFixed(1)} KiB. \`CONNECTION_HEAP_COST\` in`,
    `  src/server/connections.ts is ${(CONNECTION_HEAP_COST / 1024).toFixed(0)} KiB. Under the default heap (${SERVER_FLAGS.join(' ')}:`,
    `  a limit of ${mib(defaultLimit)} MiB) the ceiling is ${ceilingDefault.toLocaleString('en')} connections; under`,
    `  --max-old-space-size=64 (a limit of ${mib(smallLimit)} MiB), ${ceilingSmall.toLocaleString('en')}.`,
    '- Before issue 42 the door read a long body through the web stream of the adapter: the same bench, 1,000 of a',
    '  kind, gave 30.2 KiB for a body on `/v1/enroll` over TLS and 24.3 KiB on `/login` (docs/decisions.md).',
    "- Issue 35's row of 10,000 requests held over TLS, run again under this ceiling (`node bench/collections.ts",
    "  --no-postgres --only 'RSS per held request' --rounds 1`, 2026-11-28): all 10,000 held, 204 MiB of live heap,",
    '  70.4 KiB of RSS a held request against 60.5 KiB for node:https, 1.16 (goal ≤ 1.25): met.',
    '',
    '| row | measured | against | ratio | goal | met |',
    '|---|---|---|---:|---|---|',
    `| ${STALLED.toLocaleString('en')} bodies stalled under a 64 MiB heap (enroll over TLS, \`/login\`, back-channel logout, interleaved; 32 KiB of 64 sent; 32 addresses), ${rounds.length} rounds | process alive: ${alive ? 'yes' : '**no**'}; kept ${rounds.map((r) => r.kept).join(', ')} of ${STALLED} opened (the ceiling: ${ceilingSmall}); live heap then ${rounds.map((r) => r.heapMiB.toFixed(1)).join(', ')} MiB | – | – | alive | ${alive ? 'yes' : '**no**'} |`,
    `| a device's upload p95 (${uploads} one after another, each on its own connection), stalled / none | ${byUpload?.during.uploadP95.toFixed(1)} ms (median round) | ${byUpload?.without.uploadP95.toFixed(1)} ms | ${byUpload?.upload.toFixed(2)} (rounds ${rounds.map((r) => r.upload.toFixed(2)).join(', ')}) | every upload 201 | ${failed.some((f) => f.startsWith('upload')) ? `**no** (${failed.join(', ')})` : 'yes'} |`,
    `| the break-glass admin's sign-in (median of ${signIns}), stalled / none | ${bySignIn?.during.signInMedian.toFixed(0)} ms (median round) | ${bySignIn?.without.signInMedian.toFixed(0)} ms | ${bySignIn?.signIn.toFixed(2)} (rounds ${rounds.map((r) => r.signIn.toFixed(2)).join(', ')}) | every sign-in 303 | ${failed.some((f) => f.startsWith('sign-in')) ? `**no** (${failed.join(', ')})` : 'yes'} |`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!quick) await writeSection(lines.join('\n'));
} finally {
  await provider.close();
  await rm(dir, { recursive: true, force: true });
}
