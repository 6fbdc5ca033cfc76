/**
 * Uploads with the audit decorator installed and without it, in the same run (issue 13: writing
 * audit records must not slow uploads by more than 10 %). Uploads are not audited, so the
 * decorator only looks each record's event up and passes it on: the ratio should be about 1.
 * Two control API processes (bench/audit_server.ts), each on a store of its own with the same
 * fifty devices, are loaded in turn, plain then audited, `rounds` times; each side's rate is the
 * mean of its rounds, so a drift of the machine during the run touches both alike. With webhooks,
 * each round waits for the receiver to have every delivery owed so far before the next starts: the
 * sender's draining (it backs off while uploads keep it busy) never overlaps a measurement.
 *
 * Alone: `node bench/audit_uploads.ts [--duration 2] [--rounds 2]`; `npm run bench` runs it too.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import type { LoadResult } from './load.ts';
import type { Row } from './report.ts';
import { uploadLoad } from './uploads.ts';
import { SERVER_ENV, SERVER_FLAGS } from './server.ts';
import { seal } from '../src/crypto/sealed.ts';
import { webhookSealKey } from '../src/webhooks/key.ts';
import { newSecret } from '../src/webhooks/sign.ts';

export const AUDIT_UPLOADS = 'PUT /v1/runs/{id} 1 KiB, audit decorator on / off';
export const METRICS_UPLOADS = 'PUT /v1/runs/{id} 1 KiB, metrics on / off';
export const WEBHOOK_UPLOADS = 'PUT /v1/runs/{id} 1 KiB, 3 webhook endpoints on run.stored / none';

/** What is measured against plain uploads: the audit decorator (issue 13) or the metrics (issue 15). */
const MEASURED = {
  audit: { name: AUDIT_UPLOADS, goal: 'ratio ≥ 0.9 (audited ÷ plain)', min: 0.9 },
  metrics: { name: METRICS_UPLOADS, goal: 'ratio ≥ 0.95 (with metrics ÷ without)', min: 0.95 },
  webhooks: { name: WEBHOOK_UPLOADS, goal: 'ratio ≥ 0.9 (3 endpoints ÷ none)', min: 0.9 },
} as const;

/**
 * Three endpoints subscribed to run.stored, all at one receiver on loopback that answers 204 (in a
 * process of its own, so it takes no CPU from the load generator's process measurements).
 */
async function endpoints(dir: string, url: string): Promise<void> {
  const store = openSqliteStore(dir);
  const sealKey = await webhookSealKey(store);
  for (let i = 0; i < 3; i++)
    await store.createWebhook({
      id: `wh_bench${String(i).padStart(13, '0')}`,
      url,
      events: ['run.stored'],
      description: `bench ${i}`,
      sealedSecret: seal(sealKey, newSecret()),
      createdAt: Date.now(),
      createdBy: 'local:admin',
    });
  await store.close();
}

const RECEIVER = `
const { createServer } = await import('node:http');
let n = 0;
const s = createServer((req, res) => {
  if (req.method === 'GET') return void res.end(String(n));
  req.resume(); req.on('end', () => { n++; res.writeHead(204).end(); });
});
s.listen(0, '127.0.0.1', () => process.stdout.write('listening ' + s.address().port + '\\n'));
process.once('SIGTERM', () => { process.stderr.write('received ' + n + '\\n'); process.exit(0); });
`;

/**
 * Waits until the receiver has had `expected` deliveries: the sender drains its backlog before the
 * next round, so its draining never takes CPU from the other side's measurement.
 */
async function drained(base: string, expected: number, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  for (;;) {
    const n = Number(await (await fetch(`${base}/count`)).text());
    if (n >= expected) break;
    if (performance.now() - started > 120_000) throw new Error(`the receiver had ${n} of ${expected} deliveries`);
    await new Promise((r) => setTimeout(r, 50));
  }
  log(
    `all ${expected} deliveries so far arrived, ${((performance.now() - started) / 1000).toFixed(1)} s after the round`,
  );
}

/** Fifty devices with the same credentials in each store. */
async function devices(dir: string, credentials: string[]): Promise<void> {
  const store = openSqliteStore(dir);
  const now = Date.now();
  for (const [i, credential] of credentials.entries()) {
    await store.createEnrollToken({
      hash: `t${i}`,
      owner: 'oidc:uploader',
      createdBy: 'local:admin',
      createdAt: now,
      expiresAt: now + 1e12,
    });
    await store.enrollDevice({
      tokenHash: `t${i}`,
      now,
      deviceId: `d_audit${i}`,
      name: `uploader ${i}`,
      credentialHash: createHash('sha256').update(credential).digest('hex'),
    });
  }
  await store.close();
}

async function start(dir: string, mode: 'audit' | 'metrics' | 'webhooks' | 'plain' | 'receiver') {
  const args =
    mode === 'receiver'
      ? ['--input-type=module', '-e', RECEIVER]
      : [...SERVER_FLAGS, 'bench/audit_server.ts', dir, mode];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...SERVER_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as unknown as ChildProcessWithoutNullStreams;
  let out = '';
  const port = await new Promise<number>((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) done(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`audit_server.ts exited (${code})`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

export async function auditUploadsBench(opts: {
  duration: number;
  rounds: number;
  log: (line: string) => void;
  /** The audit decorator (default), the metrics, or 3 webhook endpoints (both sides run the sender). */
  measured?: 'audit' | 'metrics' | 'webhooks';
}): Promise<Row> {
  const measured = opts.measured ?? 'audit';
  const { name, goal, min } = MEASURED[measured];
  const dir = await mkdtemp(join(tmpdir(), 'paddock-bench-audit-'));
  const credentials = Array.from({ length: 50 }, () => randomBytes(32).toString('base64url'));
  await devices(join(dir, 'plain'), credentials);
  await devices(join(dir, 'audit'), credentials);
  const receiver = measured === 'webhooks' ? await start(dir, 'receiver') : undefined;
  if (receiver) await endpoints(join(dir, 'audit'), `${receiver.base}/hook`);
  const plain = await start(join(dir, 'plain'), measured === 'webhooks' ? 'webhooks' : 'plain');
  const audit = await start(join(dir, 'audit'), measured);
  try {
    // A second of each first, not counted: both processes reach the same warm state.
    let uploaded = 0;
    const drain = async () => {
      if (receiver) await drained(receiver.base, 3 * uploaded, opts.log);
    };
    for (const [mode, server] of [
      ['plain', plain],
      ['audit', audit],
    ] as const) {
      const r = await uploadLoad('warm-up', server.base, credentials, {
        duration: 1,
        pid: server.pid,
        prefix: `${mode}-warm`,
      });
      if (mode === 'audit') uploaded += r.ok;
    }
    await drain();
    const results: Record<'plain' | 'audit', LoadResult[]> = { plain: [], audit: [] };
    for (let round = 0; round < opts.rounds; round++)
      for (const [mode, server] of [
        ['plain', plain],
        ['audit', audit],
      ] as const) {
        const r = await uploadLoad(`${name} (${mode})`, server.base, credentials, {
          duration: opts.duration,
          pid: server.pid,
          prefix: `${mode}-${round}`,
        });
        results[mode].push(r);
        if (mode === 'audit') {
          uploaded += r.ok;
          await drain();
        }
        const label = mode === 'audit' ? measured : mode;
        opts.log(
          `uploads ${label}, round ${round + 1}: ${r.requestsPerSecond.toFixed(0)}/s, server CPU ${r.cpuMicrosPerRequest.toFixed(0)} µs an upload, ${r.non2xx} not 2xx`,
        );
      }
    const mean = (rs: LoadResult[], f: (r: LoadResult) => number) => rs.reduce((s, r) => s + f(r), 0) / rs.length;
    const on = results.audit;
    const off = results.plain;
    const ratio = mean(on, (r) => r.requestsPerSecond) / mean(off, (r) => r.requestsPerSecond);
    const failures = [...on, ...off].reduce((n, r) => n + r.non2xx + r.errors, 0);
    return {
      name,
      requestsPerSecond: mean(on, (r) => r.requestsPerSecond),
      p50: mean(on, (r) => r.p50),
      p99: mean(on, (r) => r.p99),
      non2xx: on.reduce((n, r) => n + r.non2xx, 0),
      ok: on.reduce((n, r) => n + r.ok, 0),
      errors: on.reduce((n, r) => n + r.errors, 0),
      peakRssMiB: Math.max(...on.map((r) => r.peakRssMiB)),
      startRssMiB: on[0]?.startRssMiB ?? 0,
      cpuMicrosPerRequest: mean(on, (r) => r.cpuMicrosPerRequest),
      baselineRps: mean(off, (r) => r.requestsPerSecond),
      ratio,
      baselineCpuMicros: mean(off, (r) => r.cpuMicrosPerRequest),
      cpuRatio: mean(off, (r) => r.cpuMicrosPerRequest) / mean(on, (r) => r.cpuMicrosPerRequest),
      goal,
      met: ratio >= min && failures === 0,
    };
  } finally {
    await plain.stop();
    await audit.stop();
    await receiver?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      rounds: { type: 'string' },
      metrics: { type: 'boolean' },
      webhooks: { type: 'boolean' },
    },
  });
  const row = await auditUploadsBench({
    measured: values.metrics ? 'metrics' : values.webhooks ? 'webhooks' : 'audit',
    duration: Number(values.duration ?? 5),
    rounds: Number(values.rounds ?? 3),
    log: (line) => process.stderr.write(`bench: ${line}\n`),
  });
  process.stdout.write(
    `${row.name}: on ${row.requestsPerSecond.toFixed(0)}/s, off ${row.baselineRps?.toFixed(0)}/s, ratio ${row.ratio?.toFixed(3)} (${row.met ? 'goal met' : 'goal NOT met'})\n`,
  );
}
