// Ten thousand slow or idle connections from loopback (connected and silent, idle after an answer,
// slow headers, slow form bodies) do not lock out a normal client or another device, with the cap
// the open-file limit allows and with a cap far below the load (the connection waiting longest
// for a head is closed for each newcomer). Not a benchmark: a functional bound with a wide margin.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { test, type TestContext } from 'node:test';
import { connectionCap } from '../../src/server/connections.ts';
import { live } from '../support/live.ts';

const HELD = 10_000;
const TRIES = 20;
const HOLDER = fileURLToPath(new URL('./hold_connections.ts', import.meta.url));

/** The 95th percentile of `ms` (nearest rank). */
function p95(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.ceil(0.95 * sorted.length) - 1] ?? Infinity;
}

/**
 * One request over a connection of its own (a client arriving while the load is held, as a new
 * device or browser does): its status, or the connection's error.
 */
function fresh(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0)).on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function underLoad(t: TestContext, maxConnections?: number) {
  const l = await live({}, maxConnections === undefined ? {} : { maxConnections });
  const { cookie } = await l.signIn();
  const other = await l.enroll('not-held-up');
  const holder = spawn(process.execPath, [HOLDER, String(l.port), String(HELD)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(createInterface({ input: holder.stdout }), 'line')) as [string];
    const held = JSON.parse(line) as { opened: number; open: number };
    assert.equal(held.opened, HELD);
    // The load is real: the server holds them all, or with a low cap as many as it keeps.
    assert.ok(held.open >= Math.min(HELD, (maxConnections ?? HELD) - 10), `${held.open} open`);

    // The test's process is the server's: its memory with the load held, for the record.
    const rss = process.memoryUsage().rss / 2 ** 20;
    const timings: Record<'healthz' | 'page' | 'upload', number[]> = { healthz: [], page: [], upload: [] };
    const timed = async (what: keyof typeof timings, answer: () => Promise<number>, status: number) => {
      const started = performance.now();
      assert.equal(await answer(), status, what);
      timings[what].push(performance.now() - started);
    };
    for (let i = 0; i < TRIES; i++) {
      await timed('healthz', () => fresh(l.port, '/healthz'), 200);
      await timed('page', () => fresh(l.port, '/devices', { headers: { cookie } }), 200);
      await timed(
        'upload',
        () =>
          fresh(l.port, `/v1/runs/under-load-${i}`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${other.credential}`, 'x-privacy-level': 'full' },
            body: `run ${i} of a device among ten thousand idle connections`,
          }),
        201,
      );
    }
    const figures = Object.fromEntries(Object.entries(timings).map(([what, ms]) => [what, p95(ms)]));
    t.diagnostic(
      `cap ${maxConnections ?? connectionCap()}, ${held.open} of ${HELD} held open, RSS ${rss.toFixed(0)} MiB; p95 ms: ${Object.entries(
        figures,
      )
        .map(([what, ms]) => `${what} ${ms.toFixed(1)}`)
        .join(', ')}`,
    );
    for (const [what, ms] of Object.entries(figures)) assert.ok(ms < 1000, `${what}: p95 ${ms.toFixed(1)} ms`);
  } finally {
    holder.stdin.end();
    if (holder.exitCode === null) await once(holder, 'exit');
    await l.close();
  }
}

test(
  `${HELD} slow or idle connections under the open-file limit's cap: /healthz, a console page and another device's upload answer under 1 s at p95`,
  { timeout: 120_000 },
  async (t) => {
    // The server keeps them all: its cap, from this process's open-file limit, is above them.
    assert.ok(connectionCap() > HELD + 100, `cap ${connectionCap()}: raise the open-file limit (ulimit -Hn)`);
    await underLoad(t);
  },
);

test(
  `${HELD} slow or idle connections against a cap of 2,048: newcomers push out the longest waiting, and are served under 1 s at p95`,
  { timeout: 120_000 },
  async (t) => {
    await underLoad(t, 2048);
  },
);
