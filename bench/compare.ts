/** Targets measured next to their baseline in the same run, against one `paddock serve`. */
import { writeFile } from 'node:fs/promises';
import { type Baseline, startBaseline } from './baseline.ts';
import { load, type LoadResult } from './load.ts';
import type { Row } from './report.ts';

/** Seconds of load on each side before a measured one. */
const WARM_UP_S = 1;

/**
 * Alternating rounds of a filtered list against the plain one (`versus`): five, as single rounds of
 * the same pair moved from 0.59 to 0.98 within one run on two cores.
 */
const VERSUS_ROUNDS = 5;

/** Rounds of equal length as one load: rates and CPU averaged, the worst p99 and peak, failures summed. */
function combined(rounds: readonly LoadResult[]): LoadResult {
  const mean = (f: (r: LoadResult) => number) => rounds.reduce((n, r) => n + f(r), 0) / rounds.length;
  const sum = (f: (r: LoadResult) => number) => rounds.reduce((n, r) => n + f(r), 0);
  const first = rounds[0];
  if (first === undefined) throw new Error('no rounds');
  return {
    ...first,
    requestsPerSecond: mean((r) => r.requestsPerSecond),
    cpuMicrosPerRequest: mean((r) => r.cpuMicrosPerRequest),
    p50: Math.round(mean((r) => r.p50)),
    p99: Math.max(...rounds.map((r) => r.p99)),
    peakRssMiB: Math.max(...rounds.map((r) => r.peakRssMiB)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    ok: sum((r) => r.ok),
  };
}

/**
 * The path of the next (older) keyset page after the page at `path` whose body is `body`, or
 * undefined on the last page: a console page's "older" link, whose filters it keeps, or an API
 * list's `next` cursor passed as `before` with the same filters.
 */
export function olderPage(path: string, body: string): string | undefined {
  const [list = path, query = ''] = path.split('?');
  if (!list.startsWith('/api/'))
    return new RegExp(`href="(${list}\\?[^"]*before=[\\d.]+)"`).exec(body)?.[1]?.replaceAll('&amp;', '&');
  const next = (JSON.parse(body) as { next?: string }).next;
  if (next === undefined) return undefined;
  const params = new URLSearchParams(query);
  params.set('before', next);
  return `${list}?${params.toString()}`;
}

/**
 * What a row must reach; `ignore` is what may differ between the two answers' bytes (the time a
 * cached snapshot was taken, which each process takes on its own), taken out of both before they
 * are compared.
 */
export interface Target {
  minRatio?: number;
  maxP99?: number;
  ignore?: RegExp;
}

/** The dashboard's "Counted together at <time>" (src/views/fleet.ts): each process's own snapshot time. */
export const DASHBOARD_TAKEN_AT = /Counted together at <time datetime="[^"]*">[^<]*<\/time>/g;

/**
 * A list's total as old as each process's own count (src/views/list_parts.ts): "of about 111 …
 * (counted 2 s ago)" against "of 111" from a process that counted a second later. The number stays.
 */
export const LIST_COUNT_AGE = /\babout (?=[\d,]+ )|\s*<small>\(counted [^<]*\)<\/small>/g;

export function comparer(ctx: {
  dir: string;
  base: string;
  pid: number;
  duration: number;
  rows: Row[];
  log: (line: string) => void;
  selected: (name: string) => boolean;
  /** Connections of each load (50 unless said). */
  connections?: number;
}) {
  const opts = { connections: ctx.connections ?? 50, duration: ctx.duration, pid: ctx.pid };
  /** `c` is a session cookie, or `Bearer pdk_…` for the API. */
  const headers = (c?: string): Record<string, string> =>
    c === undefined ? {} : c.startsWith('Bearer ') ? { authorization: c } : { cookie: c };
  const get = async (path: string, c?: string) => {
    const res = await fetch(`${ctx.base}${path}`, { headers: headers(c) });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    return { body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') ?? '' };
  };
  async function measure(
    name: string,
    path: string,
    c: string | undefined,
    target: Target,
    start: () => Promise<Baseline>,
    sameBody = false,
  ) {
    const baseline = await start();
    if (sameBody) {
      // A baseline doing the same query and render must answer the same bytes, or it measures something else.
      // Asked up to three times: a write landing between the two reads (the minute sweep records
      // its time, which the dashboard shows) differs once; a different page differs every time.
      let same = false;
      for (let attempt = 0; attempt < 3 && !same; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
        const [theirs, ours] = await Promise.all([
          fetch(`${baseline.url}${path}`, { headers: headers(c) }).then((r) => r.text()),
          fetch(`${ctx.base}${path}`, { headers: headers(c) }).then((r) => r.text()),
        ]);
        same = theirs.replace(target.ignore ?? /$^/g, '') === ours.replace(target.ignore ?? /$^/g, '');
      }
      if (!same) {
        // Both answers are kept for a look at what differs.
        const kept = `${ctx.dir}/${name.replace(/\W+/g, '-')}`;
        await writeFile(
          `${kept}.baseline.txt`,
          await fetch(`${baseline.url}${path}`, { headers: headers(c) }).then((r) => r.text()),
        );
        await writeFile(
          `${kept}.server.txt`,
          await fetch(`${ctx.base}${path}`, { headers: headers(c) }).then((r) => r.text()),
        );
        ctx.log(`${name}: both answers kept in ${kept}.*.txt`);
        await baseline.stop();
        throw new Error(`${name}: the baseline answers other bytes than the server`);
      }
    }
    // A second of each first, not counted: both sides compiled and warm, as a server is after its
    // first minute (a fresh baseline was otherwise measured cold against a server used before).
    const baselineLoad = { ...opts, url: `${baseline.url}${path}`, headers: headers(c), pid: baseline.pid };
    const ownLoad = { ...opts, url: `${ctx.base}${path}`, headers: headers(c) };
    await load(`${name} (baseline, warm-up)`, { ...baselineLoad, duration: WARM_UP_S });
    const raw = await load(`${name} (baseline)`, baselineLoad);
    await baseline.stop();
    await load(`${name} (warm-up)`, { ...ownLoad, duration: WARM_UP_S });
    const result = await load(name, ownLoad);
    const ratio = result.requestsPerSecond / raw.requestsPerSecond;
    const met =
      (target.minRatio === undefined || ratio >= target.minRatio) &&
      (target.maxP99 === undefined || result.p99 < target.maxP99) &&
      result.non2xx === 0 &&
      result.errors === 0 &&
      raw.non2xx === 0;
    const goal = [target.minRatio && `≥ ${target.minRatio} of baseline`, target.maxP99 && `p99 < ${target.maxP99} ms`]
      .filter(Boolean)
      .join(', ');
    const cpuRatio = raw.cpuMicrosPerRequest / result.cpuMicrosPerRequest;
    ctx.rows.push({
      ...result,
      baselineRps: raw.requestsPerSecond,
      ratio,
      cpuRatio,
      baselineCpuMicros: raw.cpuMicrosPerRequest,
      goal,
      met,
    });
    ctx.log(
      `${name}: ${result.requestsPerSecond.toFixed(0)} req/s vs ${raw.requestsPerSecond.toFixed(0)} (${ratio.toFixed(2)}), CPU ${result.cpuMicrosPerRequest.toFixed(0)} µs/req vs ${raw.cpuMicrosPerRequest.toFixed(0)} (${cpuRatio.toFixed(2)}), p99 ${result.p99} ms${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}`,
    );
  }

  return {
    /**
     * A later keyset page, `hops` "older" links from the first: the last page on the way that is
     * itself followed by another, so it holds a whole page of rows even for an account whose list is
     * short (an owner's last page may hold two rows, which would flatter the figure). Filters in
     * the path are kept by the "older" links.
     */
    async laterPage(path: string, c: string, hops: number) {
      let full = path;
      let next = path;
      for (let i = 0; i <= hops; i++) {
        const link = olderPage(next, (await get(next, c)).body.toString());
        if (!link) break;
        full = next;
        next = link;
      }
      return full;
    },

    /** Runs the target and its baseline back to back (baseline first) and records the ratio. */
    async compare(
      name: string,
      path: string,
      c: string | undefined,
      target: { minRatio?: number; maxP99?: number },
      baselineBody?: Buffer,
      baselineType?: string,
    ) {
      if (!ctx.selected(name)) return;
      const page = baselineBody ? { body: baselineBody, type: baselineType ?? 'text/plain' } : await get(path, c);
      await measure(name, path, c, target, () =>
        startBaseline(ctx.dir, name.replace(/\W+/g, '-'), page.body, page.type),
      );
    },

    /**
     * A page against another page of the same server, measured back to back (the other first): a
     * filtered list against the plain list, so the ratio says what the filter costs. The goal is
     * that ratio (docs/contract.md section 22); both p99s are logged, not bounded: at 50 connections
     * on two cores the plain list's own p99 is a few hundred milliseconds.
     */
    async versus(
      name: string,
      path: string,
      plainPath: string,
      c: string | undefined,
      target: { minRatio: number; maxP99?: number },
      /** The other side as another account (its cookie), named in the goal: a member against an owner. */
      plainAs?: { c: string; name: string },
    ) {
      if (!ctx.selected(name)) return;
      // Both sides warmed, then measured in alternating rounds: one pair of back-to-back loads moved
      // by ±0.2 between runs (a collection, a count kept 5 s, a sweep landing on one side only).
      const sides = {
        plain: { url: `${ctx.base}${plainPath}`, headers: headers(plainAs?.c ?? c) },
        filtered: { url: `${ctx.base}${path}`, headers: headers(c) },
      };
      for (const side of Object.values(sides))
        await load(`${name} (warm-up)`, { ...opts, ...side, duration: WARM_UP_S });
      const rounds = { plain: [] as LoadResult[], filtered: [] as LoadResult[] };
      const seconds = Math.max(1, Math.ceil(ctx.duration / 2));
      for (let round = 0; round < VERSUS_ROUNDS; round++) {
        rounds.plain.push(await load(`${name} (the plain list)`, { ...opts, ...sides.plain, duration: seconds }));
        rounds.filtered.push(await load(name, { ...opts, ...sides.filtered, duration: seconds }));
      }
      const plain = combined(rounds.plain);
      const result = combined(rounds.filtered);
      const ratio = result.requestsPerSecond / plain.requestsPerSecond;
      const each = rounds.filtered.map((r, i) => r.requestsPerSecond / (rounds.plain[i]?.requestsPerSecond ?? NaN));
      const met =
        ratio >= target.minRatio &&
        (target.maxP99 === undefined || result.p99 < target.maxP99) &&
        result.non2xx === 0 &&
        result.errors === 0 &&
        plain.non2xx === 0;
      const goal = [
        `≥ ${target.minRatio} of ${plainPath}${plainAs ? ` as ${plainAs.name}` : ''}`,
        target.maxP99 && `p99 < ${target.maxP99} ms`,
      ]
        .filter(Boolean)
        .join(', ');
      ctx.rows.push({ ...result, baselineRps: plain.requestsPerSecond, ratio, goal, met });
      ctx.log(
        `${name}: ${result.requestsPerSecond.toFixed(0)} req/s vs ${plainPath} ${plain.requestsPerSecond.toFixed(0)} (${ratio.toFixed(2)}; rounds ${each.map((r) => r.toFixed(2)).join(', ')}), p99 ${result.p99} ms against ${plain.p99} ms`,
      );
    },

    /** As compare, against a baseline server of the caller's (one doing the same query and render). */
    async compareTo(
      name: string,
      path: string,
      c: string | undefined,
      target: Target,
      baseline: () => Promise<Baseline>,
    ) {
      if (!ctx.selected(name)) return;
      await measure(name, path, c, target, baseline, true);
    },
  };
}
