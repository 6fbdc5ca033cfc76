/**
 * The young-generation table (issue 38): one `paddock serve` for each pair of V8 heap settings,
 * each measured on the same dataset in the same run, to choose SERVER_FLAGS from.
 *
 * For each row:
 * - pages a second on `GET /runs` and `GET /devices` (first page, admin), and their ratio to the
 *   same-work baseline (bench/page_baseline_server.ts) on V8's defaults, measured once for the table;
 * - the peak resident memory (VmHWM) of a short replay of the bench's heavy loads: every list page
 *   of bench/run.ts, uploads, and ten concurrent views of the 16 MiB run;
 * - the heap left live (after a full collection, read through the inspector) while 10,000
 *   connections are held: half idle after an answer, half slow clients halfway through a request head,
 *   with pages answered meanwhile. The old generation's cap must stay far above it.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { load, peakRssMiB, rssMiB } from './load.ts';
import { SERVER_ENV, SERVER_FLAGS, startPaddock } from './server.ts';
import { uploadLoad } from './uploads.ts';
import type { Baseline } from './baseline.ts';

export interface HeapSettings {
  /** --max-semi-space-size, MiB (the young generation is three semi-spaces). */
  semiSpace: number;
  /** --max-old-space-size, MiB. */
  oldSpace: number;
}

export const HEAP_SETTINGS: readonly HeapSettings[] = [
  { semiSpace: 2, oldSpace: 256 },
  { semiSpace: 4, oldSpace: 256 },
  { semiSpace: 8, oldSpace: 256 },
  { semiSpace: 16, oldSpace: 256 },
  { semiSpace: 8, oldSpace: 128 },
];

/** The settings of SERVER_FLAGS (`npm start`, bin/paddock.js), the row chosen from the table. */
export const CHOSEN: HeapSettings = {
  semiSpace: Number(
    /^--max-semi-space-size=(\d+)$/.exec(SERVER_FLAGS.find((f) => f.startsWith('--max-semi')) ?? '')?.[1],
  ),
  oldSpace: Number(/^--max-old-space-size=(\d+)$/.exec(SERVER_FLAGS.find((f) => f.startsWith('--max-old')) ?? '')?.[1]),
};

export function heapFlags(s: HeapSettings): string[] {
  return [`--max-semi-space-size=${s.semiSpace}`, `--max-old-space-size=${s.oldSpace}`];
}

export interface HeapRow extends HeapSettings {
  runs: { rps: number; cpuMicros: number; ratio: number };
  devices: { rps: number; cpuMicros: number; ratio: number };
  /** VmHWM after the replay of the bench's heavy loads, MiB. */
  peakRssMiB: number;
  /** Heap used after a full collection with 10,000 connections held, MiB; and the RSS then. */
  heldLiveHeapMiB: number;
  heldRssMiB: number;
  /** Connections still open when the heap was read (the cap may shed some). */
  held: number;
}

export interface TableContext {
  dataDir: string;
  sessionKey: string;
  adminCookie: string;
  /** Every list page bench/run.ts measures, for the replay. */
  pages: string[];
  largeRun: string;
  uploadCredentials: string[];
  duration: number;
  connections: number;
  /** Starts the same-work page baseline on V8's defaults. */
  baseline: () => Promise<Baseline>;
  log: (line: string) => void;
}

const LOAD = { connections: 50 };

export async function youngGenerationTable(ctx: TableContext, settings = HEAP_SETTINGS): Promise<HeapRow[]> {
  const baseline = await ctx.baseline();
  const base: Record<string, { rps: number }> = {};
  for (const path of ['/runs', '/devices']) {
    const opts = { ...LOAD, url: `${baseline.url}${path}`, headers: { cookie: ctx.adminCookie }, pid: baseline.pid };
    await load(`baseline ${path} warm-up`, { ...opts, duration: 1 });
    base[path] = { rps: (await load(`baseline ${path}`, { ...opts, duration: ctx.duration })).requestsPerSecond };
  }
  await baseline.stop();
  const rows: HeapRow[] = [];
  for (const s of settings) {
    const row = await measureRow(ctx, s, base);
    rows.push(row);
    ctx.log(
      `heap ${s.semiSpace}/${s.oldSpace} MiB: /runs ${row.runs.rps.toFixed(0)} req/s (${row.runs.ratio.toFixed(2)}), /devices ${row.devices.rps.toFixed(0)} (${row.devices.ratio.toFixed(2)}), peak ${row.peakRssMiB.toFixed(0)} MiB, ${row.held} held: live heap ${row.heldLiveHeapMiB.toFixed(1)} MiB, RSS ${row.heldRssMiB.toFixed(0)} MiB`,
    );
  }
  return rows;
}

async function measureRow(ctx: TableContext, s: HeapSettings, base: Record<string, { rps: number }>): Promise<HeapRow> {
  const server = await startPaddock(
    { PADDOCK_DATA_DIR: ctx.dataDir, PADDOCK_SESSION_KEYS: ctx.sessionKey, ...SERVER_ENV },
    { flags: heapFlags(s) },
  );
  try {
    const page = async (path: string) => {
      const opts = { ...LOAD, url: `${server.base}${path}`, headers: { cookie: ctx.adminCookie }, pid: server.pid };
      await load(`${path} warm-up`, { ...opts, duration: 1 });
      const r = await load(path, { ...opts, duration: ctx.duration });
      return {
        rps: r.requestsPerSecond,
        cpuMicros: r.cpuMicrosPerRequest,
        ratio: r.requestsPerSecond / (base[path]?.rps ?? 1),
      };
    };
    const runs = await page('/runs');
    const devices = await page('/devices');
    // The replay: each list page as long as a bench row, uploads, then ten views of the 16 MiB run at once.
    for (const path of ctx.pages)
      await load(path, {
        ...LOAD,
        url: `${server.base}${path}`,
        headers: { cookie: ctx.adminCookie },
        pid: server.pid,
        duration: ctx.duration,
      });
    await uploadLoad('uploads', server.base, ctx.uploadCredentials, {
      duration: ctx.duration,
      pid: server.pid,
      prefix: uploadPrefix(s),
    });
    await load('16 MiB ×10', {
      connections: 10,
      amount: 10,
      timeout: 60,
      pid: server.pid,
      url: `${server.base}${ctx.largeRun}`,
      headers: { cookie: ctx.adminCookie },
    });
    const peak = peakRssMiB(server.pid);
    const held = await holdConnections(server.base, ctx.connections);
    try {
      // Pages answered while they are held, so that their garbage is in the heap too.
      await load('/devices while held', {
        ...LOAD,
        url: `${server.base}/devices`,
        headers: { cookie: ctx.adminCookie },
        pid: server.pid,
        duration: 2,
      });
      const live = await liveHeapMiB(server.pid);
      return {
        ...s,
        runs,
        devices,
        peakRssMiB: peak,
        heldLiveHeapMiB: live,
        heldRssMiB: rssMiB(server.pid),
        held: held.open(),
      };
    } finally {
      held.close();
    }
  } finally {
    await server.stop();
    // The replay's uploads go, so that every row and the bench after the table see the same
    // dataset, and no server inherits their level check (a dashboard read while it ran changed
    // between the server's answer and its baseline's).
    const db = new DatabaseSync(join(ctx.dataDir, 'paddock.db'));
    try {
      db.prepare('DELETE FROM runs WHERE id LIKE ?').run(`${uploadPrefix(s)}-%`);
    } finally {
      db.close();
    }
  }
}

function uploadPrefix(s: HeapSettings): string {
  return `heap-${s.semiSpace}-${s.oldSpace}`;
}

/**
 * `count` connections to `base`, from the loopback addresses 127.0.0.2 to 127.0.0.9 (so that ports
 * do not run out): even ones idle after one answered request, odd ones slow clients that sent half a
 * request head. Resolves once all are connected and the idle ones answered.
 */
async function holdConnections(base: string, count: number): Promise<{ open(): number; close(): void }> {
  const { hostname, port } = new URL(base);
  const sockets: Socket[] = [];
  let open = 0;
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port), localAddress: `127.0.0.${2 + (i % 8)}` });
      sockets.push(socket);
      socket.on('error', () => resolve());
      socket.on('close', () => {
        open--;
        resolve();
      });
      socket.on('connect', () => {
        open++;
        if (i % 2 === 0) {
          socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
          socket.once('data', () => resolve());
        } else {
          socket.write(`GET /runs HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUser-Agent: slow`);
          resolve();
        }
      });
    });
  for (let i = 0; i < count; i += 500)
    await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, j) => one(i + j)));
  return {
    open: () => open,
    close: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/**
 * The heap used after a full collection, read through the inspector: SIGUSR1 opens it on
 * 127.0.0.1:9229 (as `node --inspect` would), one full garbage collection, then the heap's usage.
 */
export async function liveHeapMiB(pid: number): Promise<number> {
  return (await heapAfterCollection(pid)).usedMiB;
}

/** The heap's used and total size after a full collection, MiB. */
export async function heapAfterCollection(pid: number): Promise<{ usedMiB: number; totalMiB: number }> {
  process.kill(pid, 'SIGUSR1');
  let list: { webSocketDebuggerUrl: string }[] | undefined;
  for (let i = 0; i < 50 && list === undefined; i++) {
    list = await fetch('http://127.0.0.1:9229/json/list')
      .then((r) => r.json() as Promise<{ webSocketDebuggerUrl: string }[]>)
      .catch(() => undefined);
    if (list === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  const url = list?.[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error('the inspector did not open');
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const mine = ++id;
      ws.addEventListener('message', function answer(event) {
        const msg = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
        if (msg.id !== mine) return;
        ws.removeEventListener('message', answer);
        resolve(msg.result ?? {});
      });
      ws.send(JSON.stringify({ id: mine, method }));
    });
  await call('HeapProfiler.collectGarbage');
  const usage = await call('Runtime.getHeapUsage');
  ws.close();
  return { usedMiB: Number(usage.usedSize) / 2 ** 20, totalMiB: Number(usage.totalSize) / 2 ** 20 };
}

export function heapTableLines(rows: HeapRow[], chosen: HeapSettings = CHOSEN): string[] {
  return [
    '| young generation (semi-space) | old generation cap | GET /runs req/s (÷ baseline) | CPU µs/req | GET /devices req/s (÷ baseline) | CPU µs/req | peak RSS, heavy loads replayed | live heap, 10,000 held | RSS then |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.semiSpace} MiB${r.semiSpace === chosen.semiSpace && r.oldSpace === chosen.oldSpace ? ' (chosen)' : ''} | ${r.oldSpace} MiB | ${r.runs.rps.toFixed(0)} (${r.runs.ratio.toFixed(2)}) | ${r.runs.cpuMicros.toFixed(0)} | ${r.devices.rps.toFixed(0)} (${r.devices.ratio.toFixed(2)}) | ${r.devices.cpuMicros.toFixed(0)} | ${r.peakRssMiB.toFixed(0)} MiB | ${r.heldLiveHeapMiB.toFixed(1)} MiB (${r.held} open) | ${r.heldRssMiB.toFixed(0)} MiB |`,
    ),
  ];
}
