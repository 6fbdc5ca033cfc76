/**
 * test/hostile/stall_bodies.ts in a child process, for the hostile test and the bench alike: its
 * argument, and a handle that reads its reports and stops it. Spawned by path, not imported
 * (bench/ imports nothing from test/): the connections' file descriptors and memory are the
 * child's, not the caller's or the server's.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const STALLER = new URL('../test/hostile/stall_bodies.ts', import.meta.url).pathname;

export type StallKind = 'idle' | 'held' | 'enroll' | 'login' | 'backchannel';

export interface StallSetup {
  port: number;
  /** Client addresses to spread over: 127.0.0.`from`, the next, … (`from` 2 by default). */
  addresses: number;
  from?: number;
  /** Body bytes sent before stalling (16 KiB by default), of the 64 KiB each body declares. */
  sent?: number;
  groups: Array<{ kind: StallKind; count: number }>;
  /** Device credentials for `held` (a device holds at most two requests). */
  credentials?: string[];
}

/** One line of the staller: connections opened, still open, and the early answers by status. */
export interface StallReport {
  opened: number;
  open: number;
  answered: Record<string, number>;
}

export interface Staller {
  /** The report printed once every connection was opened. */
  first: StallReport;
  report(): Promise<StallReport>;
  stop(): Promise<void>;
}

/** Opens the connections of `setup` from a child process; resolves once all were opened. */
export async function stall(setup: StallSetup): Promise<Staller> {
  const child = spawn(process.execPath, [STALLER, JSON.stringify(setup)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(String((await lines.next()).value)) as StallReport;
  const first = await next();
  return {
    first,
    report: () => {
      child.stdin.write('report\n');
      return next();
    },
    async stop() {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}
