/** The results table: printed, and written to bench/results.md with the machine's description. */
import { heapTableLines, type HeapRow } from './young_generation.ts';
import { SERVER_FLAGS } from './server.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem, release } from 'node:os';
import type { LoadResult } from './load.ts';

export interface Row extends LoadResult {
  baselineRps: number | undefined;
  ratio: number | undefined;
  /** The baseline's CPU time per request ÷ the target's (1 = the same work for the same CPU). */
  cpuRatio?: number | undefined;
  baselineCpuMicros?: number | undefined;
  goal: string;
  met: boolean;
}

/** The PostgreSQL section of the results (bench/postgres.ts): its rows, and notes under them. */
export interface PostgresSection {
  rows: Row[];
  notes: string[];
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
  postgres: PostgresSection | undefined;
  /** The young-generation table (bench/young_generation.ts), when it was run. */
  heapRows?: HeapRow[] | undefined;
}): Promise<void> {
  const lines = [
    ...tableLines(r.rows),
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
- Each load lasts ${r.duration} s. The server runs on \`npm start\`'s V8 flags (${SERVER_FLAGS.join(' ')}).
  Baselines are raw \`node:http\` servers in their own process, on V8's and glibc's defaults:
  for the list pages, a run's page, the dashboard and the API's lists one doing the same
  session or token check, query (or self-test and counts) and render (checked to answer the
  same bytes); for \`/healthz\`, the same bytes from memory. CPU µs/req is the server's own CPU time per answered request (baseline's in
  brackets); the CPU ratio hardly moves when other work shares the cores.

${lines.join('\n')}
${r.heapRows ? heapLines(r.heapRows).join('\n') : ''}
${r.postgres ? postgresLines(r.postgres).join('\n') : '\n(The PostgreSQL section was not run.)\n'}
${ANALYSIS}`;
  process.stdout.write(`${lines.join('\n')}\n`);
  const file = new URL('./results.md', import.meta.url);
  const before = await readFile(file, 'utf8').catch(() => '');
  await writeFile(file, keepSeparateSections(doc, before));
}

/**
 * Sections of the old results measured by their own scripts (the metrics' cost, the sweep, the
 * API's lists, the container image) are kept after the new ones: a full run rewrites only what it
 * measured itself.
 */
export function keepSeparateSections(doc: string, before: string): string {
  const headings = new Set([...doc.matchAll(/^## (.*)$/gm)].map((m) => m[1]));
  const kept = before
    .split(/^(?=## )/m)
    .slice(1)
    .filter((section) => !headings.has(/^## (.*)$/m.exec(section)?.[1]));
  return kept.length ? `${doc.trimEnd()}\n\n${kept.map((k) => k.trimEnd()).join('\n\n')}\n` : doc;
}

function heapLines(rows: HeapRow[]): string[] {
  return [
    '',
    '## Young generation',
    '',
    '- One `paddock serve` a row, on the same dataset, one after the other (bench/young_generation.ts). Pages a',
    "  second on the first page of each list (admin, 50 connections), against the same-work baseline on V8's",
    "  defaults, measured once for the table; the peak RSS (VmHWM) of a replay of the bench's heavy loads (the",
    '  list pages as long as a row each, uploads, ten views of the 16 MiB run); the heap left live after a full',
    '  collection (read through the inspector) with the connections held (half idle, half slow clients halfway',
    "  through a request head) and pages answered meanwhile. The chosen row is `npm start`'s (docs/decisions.md).",
    '',
    ...heapTableLines(rows),
    '',
  ];
}

function postgresLines(section: PostgresSection): string[] {
  return [
    '',
    '## PostgreSQL',
    '',
    ...section.notes.map((n) => `- ${n}`),
    '- Uploads are compared with `pgbench` inserting 1 KiB rows into a minimal table (`device text, id text, body',
    '  bytea, primary key (device, id)`; 50 clients, 2 threads, single-row inserts) in the same database, run just',
    '  before them; pages with a raw server doing the same work (bench/page_baseline_server.ts), as above.',
    '',
    ...tableLines(section.rows),
    '',
  ];
}

/**
 * Writes one section (its first line `## heading`) into bench/results.md, in place of the section of
 * the same heading, or after the others: for a script that measures one thing on its own.
 */
export async function writeSection(section: string): Promise<void> {
  const file = new URL('./results.md', import.meta.url);
  const heading = (text: string) => /^## (.*)$/m.exec(text)?.[1];
  const [preamble = '', ...sections] = (await readFile(file, 'utf8')).split(/^(?=## )/m);
  const at = sections.findIndex((s) => heading(s) === heading(section));
  if (at === -1) sections.push(section);
  else sections[at] = section;
  await writeFile(file, `${[preamble, ...sections].map((s) => s.trimEnd()).join('\n\n')}\n`);
}

/** Prints the rows of a partial run (`--only`), which does not replace bench/results.md. */
export function printTable(rows: Row[]): void {
  process.stdout.write(`${tableLines(rows).join('\n')}\n`);
}

function tableLines(rows: Row[]): string[] {
  return [
    '| target | req/s | p50 ms | p99 ms | peak RSS MiB | baseline req/s | ratio | CPU µs/req (baseline) | CPU ratio | goal | met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (x) =>
        `| ${x.name} | ${x.requestsPerSecond.toFixed(0)} | ${x.p50} | ${x.p99} | ${x.peakRssMiB.toFixed(0)} | ${x.baselineRps?.toFixed(0) ?? '–'} | ${x.ratio?.toFixed(2) ?? '–'} | ${x.cpuMicrosPerRequest.toFixed(0)}${x.baselineCpuMicros === undefined ? '' : ` (${x.baselineCpuMicros.toFixed(0)})`} | ${x.cpuRatio?.toFixed(2) ?? '–'} | ${x.goal} | ${x.met ? 'yes' : '**no**'} |`,
    ),
  ];
}

/** What limits the targets that are missed, from CPU profiles (\`npm run bench -- --cpu-prof\`). */
const ANALYSIS = `## Where a target is missed, and why

- **The machine.** The host's speed varies from run to run (a raw hello-world server gave
  between 16,000 and 72,000 requests a second on this kind of machine across sessions, and
  37,000 to 56,000 in four runs of one day); ratios compare like with like, absolute figures do
  not travel, and a ratio moves by a few hundredths between runs.
- **List pages at 0.9 of a server doing the same work** (bench/page_baseline_server.ts: the
  same session check and session-state read, parameters, keyset query, view and headers,
  byte-equal). Since issue 38 the baselines run on V8's and glibc's defaults, as a minimal server
  would, and the server on \`npm start\`'s flags, chosen from the young-generation table above
  (an 8 MiB semi-space: at 2 MiB the garbage collector took 57 µs of a \`GET /runs\` in a profile,
  against 10–16 µs at 16 MiB and 12.5 µs in the baseline, because every page in flight was promoted).
  What is left is a fixed cost a request spread thin over what only Paddock does (profile of
  \`GET /runs\`, admin, µs of about 426): Hono's dispatch 9.5 (its trie router 2.5: Hono refuses its
  faster RegExpRouter for the contract's \`/devices/bulk\` beside \`/devices/:id/rename\`), the
  metrics middleware 5.6 (prom-client hashes the labels on every \`inc\` and \`observe\`), undici's
  \`Headers\` 4.6 (made from the response's plain headers by the security headers, iterated back by
  the adapter), the node-server adapter 4.1, the URL parsed three times 1.5: about 26 µs, 6 % of
  the page, and 18 KiB allocated a request against the baseline's 225 KiB. Each item is under what
  a same-run A/B can show on this machine (an A/A run spread 0.85–1.62), so none was changed
  (docs/decisions.md). The cheapest pages (an owner's runs filtered by level or day) are furthest
  from the floor. **Keyset pagination does hold**: a later page costs about what the first does,
  except the admin's later device pages, which cost the baseline as much more (the older devices'
  rows).
- **The dashboard** (\`GET /\`) is compared with a same-work baseline since issue 24's fourth
  stop (it was its bytes from memory, 0.02–0.05): the baseline runs the same self-test on the
  same configuration and stored control certificate, and reads the counts, the chart and the
  retention section through the same count cache. First quick run: 0.78 (CPU 0.73) on SQLite,
  0.64 (CPU 0.58) on PostgreSQL; the full run: 1.01 and 0.94 (goal 0.8, met), where the counts
  of 100,000 devices' owners make the page's own work larger than the fixed cost a request.
- **The filtered lists (issue 13)** are compared with the plain lists of the same run. Filters on
  status, privacy level and days cost 0.75 to 0.8 of the plain first page (SQLite, 100,000
  devices, 1,000,000 runs), later pages the same as first ones. The name search costs about half
  of a plain page on both backends (SQLite 1,107 against 2,365 pages a second; PostgreSQL 545
  against 1,356): every bench device is named "bench device N", so the search's trigrams ("dev",
  "ice", "e 1"…) occur in every name and each lookup merges posting lists of all 100,000 devices
  before the rare trigram narrows them. Varied names narrow at once; a search is still an index
  read, never a table scan (35 ms a search before the SQLite form was fixed, 0.4 ms after).
- **PostgreSQL uploads against pgbench on a minimal table** (issue 24): group commit (one
  statement for the uploads that arrive together) took uploads from 640–655 to 1,580–4,500 a
  second in quick runs on this shared machine, against 0.10–0.12 of pgbench before. The gap left
  is printed by its parts under the PostgreSQL table, each measured in the same run (the note
  that begins "Uploads' gap to pgbench"): a raw \`node:http\` server storing the same uploads
  with the same group commit (bench/upload_baseline_server.ts) into the minimal table, then into
  Paddock's \`runs\`, and Paddock against that second server. In issue 24's fourth stop, quick
  runs: the raw server into the minimal table 0.95–1.19 of pgbench (group commit makes up for
  HTTP), into \`runs\` 0.64–0.75 of that (the schema: fifteen indexes, four of them covering the
  lists, and the counting triggers), Paddock 0.37–0.67 of the raw server into \`runs\`. Paddock's
  own share, from profiles (quick runs): the garbage collector (87 µs an upload
  against the raw server's 15, at the 2 MiB young generation: an upload in flight holds its
  web-standard request, context, middleware closures and answer across the group's commit, and
  they are promoted), the node-server adapter and Hono (about 35 KB allocated an upload, 14 of
  them there), the driver's text encoding of the group's arrays. Made cheaper this stop: the
  group's bodies travel as one binary parameter cut by their lengths (an array of \`bytea\`
  travelled as hex text, twice the bytes and a string a body), the run.stored notes are written
  by the same statement (no BEGIN, second statement and COMMIT a group), the hashes are one-shot
  (\`crypto.hash\`) and a message id's random bits come from a pooled buffer: 2,084–2,168 to
  2,869–3,127 uploads a second and 430–456 to 306–337 µs an upload in quick runs on a slow
  stretch of the machine. The young generation is the largest lever left: interleaved quick runs
  gave 160–164 µs an upload and 0.33–0.34 of pgbench at 2 MiB against 111–113 µs and 0.39–0.40 at
  16 MiB, but the quick run's memory peak 184 MiB against 202; it stays at 2 MiB (item 5). In
  issue 24's fifth stop's full run, on a faster stretch of the machine: 0.38–0.49 of pgbench (the
  raw server into the minimal table 1.00 of pgbench, into \`runs\` 0.75 of that, Paddock 0.65 of
  the raw server into \`runs\`, 85–110 µs of the server's CPU an upload). Narrower list indexes
  on \`runs\` were measured and not taken (docs/decisions.md): the narrowing that kept the lists'
  speed gave 1.08 times the inserts in pgbench and nothing visible through the product.
- **Peak resident memory** was 186 MiB in issue 24's fifth stop's full run (176 in the fourth's,
  198 and 194 in the third's; this one on a stretch of the machine about 1.8 times as fast, every
  page row's requests a second up by that much). It jumps once, with the first heavy list load
  (the admin's first device pages: 112 → 166 MiB); the rows after add a few MiB, the 16 MiB views
  none above it. What holds it, read from \`/proc/<pid>/smaps_rollup\` at a quick run's peak and
  from V8's GC trace: the node binary's pages, 54 MiB (file-backed, shared with every other Node
  process); V8's heap, 60–100 MiB committed between full collections while 17–38 MiB is live
  after one (under 50 connections of pages the 2 MiB young generation promotes what a page holds
  in flight, and freed pages stay pooled until V8's memory reducer runs); glibc's arenas, about
  36 MiB (its main arena 14–30, and one of 3–9 MiB per thread that allocated). Since this stop
  glibc runs with two arenas and fixed mmap and trim thresholds: interleaved loads of the list
  pages on one dataset peaked at 156–169 MiB against 170–187 without, at the same CPU a request,
  but the full run's peak did not come down with them. Not brought under 150 MiB: a 128 MiB old
  generation did it on the same loads (146–158 MiB) at no measured cost, but 10,000 held
  connections leave 47–62 MiB of the heap live, so that cap would let a flood of connections end
  the process; the caps that cost speed (a 64 MiB old generation, \`--optimize-for-size\`) cost
  15–30 % of every page (docs/decisions.md).
- **PostgreSQL uploads against pgbench on a minimal table** also depend on the machine's run:
  pgbench itself gave 8,116 to 16,721 inserts a second on the same day; the ratio moves less.
- **p99 under 15 ms at 50 connections** follows from throughput: with 50 requests always in
  flight, the median latency is about 50 / (requests per second) and the p99 about twice that,
  so p99 under 15 ms needs about 6,700 pages a second; an owner's device list (10 rows) comes
  closest, at 16 to 30 ms across runs.

## Targets met by changes made from profiles

- \`GET /healthz\` went from 0.55 to 0.97 of the raw server by answering it before the
  web-standard adapter (src/server/health_fast_path.ts, the same answer as the route).
- Uploads went from about 1,200 to over 3,500 a second on this host by committing the uploads
  of one event-loop turn in one transaction, a savepoint each (COMMIT was the largest single
  cost), and reading declared-length bodies without a web stream.
- The server's peak resident memory went from about 200 MiB to under 150 MiB (at the time) with a
  small young generation (\`--max-semi-space-size=2\`, set by \`npm start\` and \`paddock\`) and Node's compile cache (bin/paddock.js: a server that
  has started before does not load the TypeScript stripper, about 30 MiB less; this run starts
  from a warm cache, as after any restart) and a 256 MiB old generation
  (\`--max-old-space-size=256\`: under a small cap V8 grows the heap in small steps, so ten
  concurrent 16 MiB views took the server from 80 MiB to 104–106 MiB in three quick runs, where
  without it they reached up to 130 MiB and full runs peaked at 154 and 158 MiB). A 64 MiB cap
  cost 15 % of throughput in an earlier measurement; 256 MiB is far above the live heap.
- Ten concurrent views of a 16 MiB run add under 64 MiB because runs are stored in 256 KiB
  chunks and the escaped page is streamed with backpressure.
`;
