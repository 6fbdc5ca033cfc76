/**
 * Uploads and the runs page while the retention sweep deletes 100,000 expired runs (issue 14: the
 * sweep must not raise upload or page p99 by more than a factor of 2 while it runs).
 * A SQLite store holds 100,000 runs of about 1 KiB uploaded two days ago at `minimal`. A real
 * `paddock serve` on it without retention gives the baseline p99 of uploads and of the admin's
 * first page of `GET /runs`; the same server restarted with PADDOCK_RETENTION_MINIMAL=1d and
 * PADDOCK_SWEEP_INTERVAL=1s sweeps at most 10,000 runs a second, and the same loads are measured
 * while it does (the page first, while the store still holds most of the runs it counts); uploads
 * once more after it, when nothing is left to sweep, and their baseline is the mean of the p99
 * before and after. The count of minimal runs, read from the store file opened read-only, tells when
 * the sweep deletes, so each load is checked to have run wholly inside the sweep.
 *
 * The whole is done `rounds` times on copies of the same store; each row is the median round.
 *
 * Alone: `node bench/sweep.ts [--duration 3] [--runs 100000] [--rounds 3]`; `npm run bench` runs it too
 * (`--only sweep` for this section alone).
 */
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import { type LoadResult, load } from './load.ts';
import type { Row } from './report.ts';
import { type BenchServer, sessionCookie, startPaddock } from './server.ts';
import { uploadLoad } from './uploads.ts';
import { markLevelChecked } from './dataset.ts';

export const SWEEP = 'sweep of expired runs';

const DAY_MS = 86_400_000;

/** `runs` minimal runs uploaded two days ago over ten devices, and fifty devices to upload with. */
async function build(dataDir: string, runs: number): Promise<string[]> {
  const store = openSqliteStore(dataDir);
  const now = Date.now();
  const enroll = async (i: number, credential: string) => {
    await store.createEnrollToken({
      hash: `sweep-token-${i}`,
      owner: `oidc:account-${i % 5}`,
      createdBy: 'local:admin',
      createdAt: now,
      expiresAt: now + 1e12,
    });
    await store.enrollDevice({
      tokenHash: `sweep-token-${i}`,
      now,
      deviceId: `d_sweep${i}`,
      name: `sweep device ${i}`,
      credentialHash: createHash('sha256').update(credential).digest('hex'),
    });
  };
  const credentials = Array.from({ length: 60 }, () => randomBytes(32).toString('base64url'));
  for (const [i, credential] of credentials.entries()) await enroll(i, credential);
  const line = 'level=minimal status=<ok> & note="expired"\n';
  const body = new TextEncoder().encode(line.repeat(Math.ceil(1000 / line.length)).slice(0, 1000));
  const sha256 = createHash('sha256').update(body).digest('hex');
  const uploadedAt = now - 2 * DAY_MS;
  // In groups of concurrent uploads, as bench/dataset.ts does, so the store commits a group at once.
  for (let start = 0; start < runs; start += 500) {
    const group: Array<Promise<unknown>> = [];
    for (let i = start; i < Math.min(start + 500, runs); i++)
      group.push(
        store.putRun({
          device: `d_sweep${50 + (i % 10)}`,
          id: `expired-${i}`,
          contentType: 'text/plain',
          privacy: 'minimal',
          size: body.length,
          uploadedAt: uploadedAt + i,
          body,
          sha256,
        }),
      );
    await Promise.all(group);
  }
  await store.close();
  const db = new DatabaseSync(join(dataDir, 'paddock.db'));
  markLevelChecked(db);
  db.close();
  // The first fifty upload under load; the last ten hold the expired runs.
  return credentials.slice(0, 50);
}

/** The minimal runs left, polled from the store file while the server sweeps it. */
function watchSweep(dataDir: string, runs: number) {
  const db = new DatabaseSync(join(dataDir, 'paddock.db'), { readOnly: true });
  const count = db.prepare(`SELECT count(*) AS n FROM runs WHERE privacy = 'minimal'`);
  const samples: Array<{ at: number; left: number }> = [];
  const sample = () => samples.push({ at: Date.now(), left: Number((count.get() as { n: number }).n) });
  sample();
  const timer = setInterval(sample, 100);
  return {
    samples,
    /** When the first run was seen gone, and when the last was (undefined while some are left). */
    span() {
      const first = samples.find((s) => s.left < runs)?.at;
      const last = samples.find((s) => s.left === 0)?.at;
      return { first, last };
    },
    /** Runs deleted between two times. */
    deletedBetween(from: number, to: number) {
      const at = (t: number) => samples.findLast((s) => s.at <= t)?.left ?? runs;
      return at(from) - at(to);
    },
    left: () => samples.at(-1)?.left ?? runs,
    stop() {
      clearInterval(timer);
      db.close();
    },
  };
}

async function until(condition: () => boolean, limitMs: number): Promise<boolean> {
  const end = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

export async function sweepBench(opts: {
  runs: number;
  duration: number;
  rounds: number;
  log: (line: string) => void;
}): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-bench-sweep-'));
  try {
    const started = Date.now();
    const credentials = await build(join(dir, 'built'), opts.runs);
    opts.log(`sweep: ${opts.runs} expired runs built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const rounds: RoundRow[][] = [];
    // Each round on a fresh copy of the same store, since a round deletes it.
    for (let i = 0; i < opts.rounds; i++) {
      await cp(join(dir, 'built'), join(dir, `round-${i}`), { recursive: true });
      rounds.push(await sweepRound({ ...opts, dataDir: join(dir, `round-${i}`), credentials }));
      await rm(join(dir, `round-${i}`), { recursive: true, force: true });
    }
    // p99 moves a lot from run to run on a shared machine: each row is the round with the median
    // ratio, and says every round's; the goal holds when that median does and every round was valid.
    return [0, 1].map((k) => {
      const of = rounds.map((r) => r[k]).filter((r) => r !== undefined);
      const all = of.map((r) => r.row);
      const sorted = all.toSorted((a, b) => (a.ratio ?? 0) - (b.ratio ?? 0));
      const median = sorted[Math.floor((sorted.length - 1) / 2)];
      if (median === undefined) throw new Error('no sweep round');
      const valid = of.every((r) => r.valid);
      return {
        ...median,
        goal: `${all.length > 1 ? `median of ${all.length} rounds (${all.map((r) => r.ratio?.toFixed(2)).join(', ')}), ` : ''}${median.goal}`,
        met: (median.ratio ?? Infinity) <= 2 && valid,
      };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A round's row, and whether the round counts: its load ran inside the sweep, and nothing failed. */
interface RoundRow {
  row: Row;
  valid: boolean;
}

/** One round: the loads without retention, during the sweep, and (uploads) after it. */
async function sweepRound(opts: {
  dataDir: string;
  credentials: string[];
  runs: number;
  duration: number;
  log: (line: string) => void;
}): Promise<RoundRow[]> {
  const { dataDir, credentials } = opts;
  const key = randomBytes(32);
  const cookie = await sessionCookie(key, 'local:admin', true, dataDir);
  const env = {
    PADDOCK_DATA_DIR: dataDir,
    PADDOCK_SESSION_KEYS: key.toString('base64'),
    PADDOCK_ADMIN_PASSWORD: 'bench password 1234',
  };
  let round = 0;
  // The page first: the admin's runs page counts the runs, so it gets cheaper as the sweep
  // empties the store; measured first, it meets a store still about as full as the baseline's.
  const measure = async (server: BenchServer, duration: number) => {
    const prefix = `sweep-${round++}`;
    const t0 = Date.now();
    const page = await load(`${SWEEP}: GET /runs`, {
      connections: 50,
      duration,
      pid: server.pid,
      url: `${server.base}/runs`,
      headers: { cookie },
    });
    const t1 = Date.now();
    const uploads = await uploadLoad(`${SWEEP}: uploads`, server.base, credentials, {
      duration,
      pid: server.pid,
      prefix,
    });
    const t2 = Date.now();
    return { uploads, page, windows: [t0, t1, t2] as const };
  };

  let server = await startPaddock(env);
  let watch: ReturnType<typeof watchSweep> | undefined;
  try {
    // Each process gets the same second of each load, not counted, before it is measured.
    await measure(server, 1);
    const without = await measure(server, opts.duration);
    await server.stop();
    opts.log(`sweep: without it, uploads p99 ${without.uploads.p99} ms, GET /runs p99 ${without.page.p99} ms`);

    server = await startPaddock({ ...env, PADDOCK_RETENTION_MINIMAL: '1d', PADDOCK_SWEEP_INTERVAL: '1s' });
    watch = watchSweep(dataDir, opts.runs);
    const w = watch;
    await measure(server, 1);
    if (!(await until(() => w.span().first !== undefined, 5_000))) throw new Error('the sweep did not start');
    const during = await measure(server, opts.duration);
    const sweptAll = await until(() => w.left() === 0, 60_000);
    const { first, last } = w.span();
    const sweepSeconds = first !== undefined && last !== undefined ? (last - first) / 1000 : undefined;
    opts.log(
      `sweep: ${sweptAll ? `all ${opts.runs} deleted in about ${sweepSeconds?.toFixed(1)} s` : `${w.left()} left after 60 s`}`,
    );

    // The uploads' baseline again, on the process that swept, now that nothing is left to sweep
    // (the timer still takes the lease each second and finds nothing): a drift of the machine
    // during the run touches both sides alike. Not the page's: its store has lost the runs it counts.
    const after = await uploadLoad(`${SWEEP}: uploads`, server.base, credentials, {
      duration: opts.duration,
      pid: server.pid,
      prefix: 'sweep-after',
    });
    opts.log(`sweep: after it, uploads p99 ${after.p99} ms`);
    const mean = (a: LoadResult, b: LoadResult): LoadResult => ({
      ...a,
      requestsPerSecond: (a.requestsPerSecond + b.requestsPerSecond) / 2,
      p99: (a.p99 + b.p99) / 2,
      non2xx: a.non2xx + b.non2xx,
      errors: a.errors + b.errors,
    });

    const [t0, t1, t2] = during.windows;
    const inside = (from: number, to: number) => first !== undefined && first <= from && (last ?? Infinity) >= to;
    const row = (kind: 'uploads' | 'page', base: LoadResult, r: LoadResult, from: number, to: number): RoundRow => {
      const ratio = r.p99 / Math.max(base.p99, 1);
      const deleted = w.deletedBetween(from, to);
      const covered = inside(from, to);
      const failures = base.non2xx + base.errors + r.non2xx + r.errors;
      opts.log(
        `sweep: ${kind} p99 ${r.p99} ms during the sweep vs ${base.p99.toFixed(1)} ms without (${ratio.toFixed(2)}), ${deleted} runs deleted meanwhile${covered ? '' : ', the sweep did NOT cover the whole load'}`,
      );
      const row: Row = {
        ...r,
        name: `sweep of ${opts.runs.toLocaleString('en-US')} expired runs: ${kind === 'uploads' ? 'upload' : 'GET /runs'} p99 ratio`,
        baselineRps: base.requestsPerSecond,
        ratio,
        goal: `p99 ratio ≤ 2 (during ÷ without: ${base.p99.toFixed(0)} ms without${kind === 'uploads' ? ', mean of before and after' : ''}; ${deleted} runs deleted during the load${covered ? '' : ', sweep ended before the load'}${sweepSeconds === undefined ? '' : `; whole sweep ${sweepSeconds.toFixed(0)} s`})`,
        met: ratio <= 2 && covered && deleted > 0 && failures === 0,
      };
      return { row, valid: covered && deleted > 0 && failures === 0 };
    };
    return [
      row('uploads', mean(without.uploads, after), during.uploads, t1, t2),
      row('page', without.page, during.page, t0, t1),
    ];
  } finally {
    watch?.stop();
    await server.stop();
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: { duration: { type: 'string' }, runs: { type: 'string' }, rounds: { type: 'string' } },
  });
  const rows = await sweepBench({
    runs: Number(values.runs ?? 100_000),
    duration: Number(values.duration ?? 3),
    rounds: Number(values.rounds ?? 3),
    log: (line) => process.stderr.write(`bench: ${line}\n`),
  });
  for (const row of rows)
    process.stdout.write(
      `${row.name}: ${row.ratio?.toFixed(2)}, ${row.goal} (${row.met ? 'goal met' : 'goal NOT met'})\n`,
    );
}
