/**
 * Runs the collect command for one request (docs/contract.md section 15): `sh -c COMMAND` with the
 * request in its environment, its standard output taken as the run, at most the run limit
 * (section 6). Its standard error goes to the watch's, for whoever reads the log, and its end is
 * kept for the decline of a command that fails (stderr_tail.ts).
 */
import { spawn } from 'node:child_process';
import { RUN_LIMIT } from '../domain/runs.ts';
import type { CollectionRequest } from './requests.ts';
import { TailBuffer } from './stderr_tail.ts';

/** The run, or why the request is declined, or nothing: the watch was told to stop. */
export type Collected =
  { kind: 'run'; bytes: Buffer } | { kind: 'failed'; reason: string; stderr?: string } | { kind: 'stopped' };

export const TOO_LARGE = `command output is larger than the ${RUN_LIMIT / (1024 * 1024)} MiB run limit`;

export function collect(
  command: string,
  request: CollectionRequest,
  opts: {
    signal?: AbortSignal | undefined;
    /** Where the command's standard error goes as it comes (the watch's own, by default). */
    onStderr?: (chunk: Buffer) => void;
  } = {},
): Promise<Collected> {
  return new Promise((resolve) => {
    if (opts.signal?.aborted) return resolve({ kind: 'stopped' });
    // A process group of its own, so that everything the shell starts (a pipeline, a background
    // job) is stopped with it, and nothing keeps writing to a pipe no one reads.
    const child = spawn('sh', ['-c', command], {
      env: {
        ...process.env,
        PADDOCK_REQUEST_ID: request.id,
        PADDOCK_REQUEST_PRIVACY: request.privacy,
        PADDOCK_REQUEST_REASON: request.reason,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks: Buffer[] = [];
    const stderr = new TailBuffer();
    child.stderr.on('data', (chunk: Buffer) => {
      if (opts.onStderr) opts.onStderr(chunk);
      else process.stderr.write(chunk);
      stderr.push(chunk);
    });
    let size = 0;
    let tooLarge = false;
    let settled = false;
    const finish = (outcome: Collected) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', stop);
      resolve(outcome);
    };
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    function stop() {
      killGroup('SIGTERM');
      finish({ kind: 'stopped' });
    }
    opts.signal?.addEventListener('abort', stop, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > RUN_LIMIT) {
        tooLarge = true;
        chunks.length = 0;
        killGroup('SIGKILL');
      } else chunks.push(chunk);
    });
    child.on('error', (err) => finish({ kind: 'failed', reason: `command could not be started: ${err.message}` }));
    child.on('close', (code, signal) => {
      if (tooLarge) finish({ kind: 'failed', reason: TOO_LARGE });
      else if (code === 0) finish({ kind: 'run', bytes: Buffer.concat(chunks) });
      else if (code !== null)
        finish({ kind: 'failed', reason: `command exited with status ${code}`, stderr: stderr.text() });
      else finish({ kind: 'failed', reason: `command was killed by ${signal ?? 'a signal'}`, stderr: stderr.text() });
    });
  });
}
