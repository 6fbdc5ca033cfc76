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
  /**
   * The process's CPU time (user and system, from /proc) per answered request, in microseconds:
   * unlike requests a second, it hardly moves when other work shares the machine's cores.
   */
  cpuMicrosPerRequest: number;
}

/** User and system CPU time of a process so far, in microseconds (clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
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
  const cpuBefore = cpuMicros(opts.pid);
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
  const cpu = cpuMicros(opts.pid) - cpuBefore;
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
    cpuMicrosPerRequest: cpu / Math.max(1, result.requests.total),
  };
}
