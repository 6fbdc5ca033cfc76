/** The results table: printed, and written to bench/results.md with the machine's description. */
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem, release } from 'node:os';
import type { LoadResult } from './load.ts';

export interface Row extends LoadResult {
  baselineRps: number | undefined;
  ratio: number | undefined;
  goal: string;
  met: boolean;
}

export async function writeReport(r: {
  rows: Row[];
  size: { devices: number; accounts: number; runs: number };
  duration: number;
  buildSeconds: number;
  peakRssMiB: number;
  acknowledged: number;
  stored: number;
  quick: boolean;
}): Promise<void> {
  const lines = [
    '| target | req/s | p50 ms | p99 ms | peak RSS MiB | baseline req/s | ratio | goal | met |',
    '|---|---:|---:|---:|---:|---:|---:|---|---|',
    ...r.rows.map(
      (x) =>
        `| ${x.name} | ${x.requestsPerSecond.toFixed(0)} | ${x.p50} | ${x.p99} | ${x.peakRssMiB.toFixed(0)} | ${x.baselineRps?.toFixed(0) ?? '–'} | ${x.ratio?.toFixed(2) ?? '–'} | ${x.goal} | ${x.met ? 'yes' : '**no**'} |`,
    ),
    `| server peak RSS (VmHWM) under all of the above | | | | ${r.peakRssMiB.toFixed(0)} | | | < 150 MiB | ${r.peakRssMiB < 150 ? 'yes' : '**no**'} |`,
    `| acknowledged uploads readable afterwards | | | | | | | ${r.acknowledged} acknowledged | ${r.stored >= r.acknowledged ? `yes (${r.stored} stored)` : `**no** (${r.stored} stored)`} |`,
  ];
  const cpu = cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}, Node.js ${process.version}`;
  const doc = `# Benchmark results

Run with \`npm run bench${r.quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}.

- Machine: ${machine}. The load generator (autocannon, 50 connections), the server and each
  baseline share these cores; every target is measured right after its baseline in the same run.
- Dataset: ${r.size.devices} devices owned by ${r.size.accounts} accounts, ${r.size.runs} runs of about 1 KiB,
  one 8 KiB and one 16 MiB run, built through the store interface in ${r.buildSeconds.toFixed(0)} s (SQLite).
- Each load lasts ${r.duration} s. Baselines are raw \`node:http\` servers in their own process
  sending the same bytes from memory (for \`/healthz\`, a hello-world body).

${lines.join('\n')}
`;
  process.stdout.write(`${lines.join('\n')}\n`);
  await writeFile(new URL('./results.md', import.meta.url), doc);
}
