/** A real `paddock serve` on loopback for the benchmark, with the V8 flags of `npm start`. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { sessionCodec } from '../src/session/session.ts';
import { openPostgresStore } from '../src/store/postgres/store.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';

/**
 * The V8 flags of `npm start` and bin/paddock.js, chosen from the young-generation table
 * (bench/young_generation.ts, docs/decisions.md). The same-work baselines run on V8's defaults
 * (bench/baseline.ts): what these flags cost a page is Paddock's to pay (issue 38).
 */
export const SERVER_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=256'] as const;

/** glibc malloc's settings of `npm start` and bin/paddock.js, for the server and the baselines alike. */
export const SERVER_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
} as const;

export interface BenchServer {
  base: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startPaddock(
  env: Record<string, string>,
  /** `flags`: V8 flags in place of SERVER_FLAGS (the young-generation table, bench/young_generation.ts). */
  opts: { cpuProf?: boolean; flags?: readonly string[] } = {},
): Promise<BenchServer> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn(
    process.execPath,
    [
      ...(opts.flags ?? SERVER_FLAGS),
      ...(opts.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(process.cwd(), 'bench', 'profiles')}`] : []),
      'bin/paddock.js',
      'serve',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...SERVER_ENV,
        PADDOCK_LISTEN: `127.0.0.1:${port}`,
        PADDOCK_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  ) as unknown as ChildProcessWithoutNullStreams;
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    server.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('serving on')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`paddock serve exited (${code}): ${stderr}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    pid: server.pid ?? 0,
    async stop() {
      server.kill('SIGTERM');
      if (server.exitCode === null) await once(server, 'exit');
    },
  };
}

/**
 * A console session cookie signed with `key` (one of the server's PADDOCK_SESSION_KEYS), recorded
 * in the store at `where` (a data directory or a PostgreSQL URL) as a sign-in records it: the guard
 * refuses a session it has no row for.
 */
export async function sessionCookie(key: Buffer, subject: string, admin: boolean, where: string): Promise<string> {
  const codec = sessionCodec([key], 43_200);
  const now = Date.now();
  const session = codec.newSession({ subject, display: subject, admin }, now);
  const store = where.startsWith('postgres') ? await openPostgresStore(where) : openSqliteStore(where);
  try {
    await store.recordSession({
      id: session.id,
      subject,
      admin,
      startedAt: now,
      expiresAt: session.expires,
      client: '127.0.0.1',
      browser: 'bench',
    });
  } finally {
    await store.close();
  }
  return `service_admin=${codec.encode(session)}`;
}
