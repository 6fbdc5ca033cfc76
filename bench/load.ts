/** One load run with autocannon, and the resident memory of a process sampled while it runs. */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  ok: number;
  errors: number;
  peakRssMiB: number;
  startRssMiB: number;
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

export async function load(name: string, opts: autocannon.Options & { pid: number }): Promise<LoadResult> {
  const startRssMiB = rssMiB(opts.pid);
  let peak = startRssMiB;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(opts.pid));
    } catch {
      // The process is gone; the run's errors will say so.
    }
  }, 50);
  const result = await autocannon({ ...opts });
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB(opts.pid));
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    ok: result['2xx'],
    errors: result.errors + result.timeouts,
    peakRssMiB: peak,
    startRssMiB,
  };
}
