// The layers (README, "Architecture"): every relative import of src/ and bench/, type-only and
// dynamic ones included, is read with TypeScript's own pre-processor, and the graph must have
// (a) no cycle between files, (b) no import from a lower layer to a higher one and (c) no door
// importing another door. LAYERS below is the one table of the layers; the README draws it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Lowest first. A file may import from its own layer or a lower one. */
const LAYERS: ReadonlyArray<{ name: string; paths: readonly string[] }> = [
  { name: 'primitives', paths: ['src/crypto/', 'src/clock.ts', 'src/version.ts'] },
  { name: 'domain', paths: ['src/domain/'] },
  { name: 'events', paths: ['src/events/'] },
  { name: 'log', paths: ['src/log/'] },
  { name: 'config', paths: ['src/config/'] },
  { name: 'lists', paths: ['src/lists/'] },
  { name: 'store', paths: ['src/store/'] },
  {
    name: 'services',
    paths: [
      'src/session/',
      'src/throttle/',
      'src/tls/',
      'src/oidc/',
      'src/link/',
      'src/audit/',
      'src/metrics/',
      'src/webhooks/',
      'src/selftest/',
      'src/device_client/',
      'src/collections/',
    ],
  },
  { name: 'actions', paths: ['src/actions/'] },
  { name: 'views', paths: ['src/views/'] },
  { name: 'http', paths: ['src/http/'] },
  { name: 'context', paths: ['src/context/'] },
  { name: 'doors', paths: ['src/console/', 'src/api/', 'src/scim/', 'src/control/', 'src/service/'] },
  { name: 'sweep', paths: ['src/sweep/'] },
  { name: 'host', paths: ['src/host/'] },
  { name: 'entry points', paths: ['src/server/', 'src/cli/'] },
  { name: 'bench', paths: ['bench/'] },
];

/** The doors: each is its own folder in the layer 'doors', and none imports another. */
const DOORS = new Set(['src/console/', 'src/api/', 'src/scim/', 'src/control/', 'src/service/']);

type Graph = ReadonlyMap<string, readonly string[]>;

/** The folder (or root file) of the table a path falls under, and its layer's rank. */
function place(file: string): { rank: number; home: string } | undefined {
  for (const [rank, layer] of LAYERS.entries()) {
    const home = layer.paths.find((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));
    if (home !== undefined) return { rank, home };
  }
  return undefined;
}

/** Every violation of the three rules in a graph of files (paths relative to the repository). */
function violations(graph: Graph): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const a = place(from);
    if (a === undefined) {
      found.push(`${from}: in no layer`);
      continue;
    }
    for (const to of targets) {
      const b = place(to);
      if (b === undefined) continue; // reported as its own entry when it is in the graph
      if (b.rank > a.rank) found.push(`upward: ${from} -> ${to}`);
      else if (DOORS.has(a.home) && DOORS.has(b.home) && a.home !== b.home)
        found.push(`door to door: ${from} -> ${to}`);
    }
  }
  for (const cycle of cycles(graph)) found.push(`cycle: ${cycle.join(' -> ')}`);
  return found.sort();
}

/** The strongly connected components of more than one file (or a file importing itself), by Tarjan. */
function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** The relative specifiers a source imports or re-exports, type-only and dynamic ones included. */
function relativeImports(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'));
}

/** The repository's graph: each file of src/ and bench/ to the files its relative imports name. */
function repositoryGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...sources('src'), ...sources('bench')]) {
    const targets = relativeImports(readFileSync(join(root, file), 'utf8')).map((name) =>
      relative(root, resolve(root, dirname(file), name)),
    );
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

test('the layer table places every file of src/ and bench/', () => {
  const unplaced = [...repositoryGraph().keys()].filter((f) => place(f) === undefined);
  assert.deepEqual(unplaced, []);
});

test('every relative import names a file that exists', () => {
  const graph = repositoryGraph();
  const missing = [...graph].flatMap(([from, to]) => to.filter((t) => !graph.has(t)).map((t) => `${from} -> ${t}`));
  assert.deepEqual(missing, []);
});

test('no import cycle, no upward import, no door importing another door', () => {
  assert.deepEqual(violations(repositoryGraph()), []);
});

test('the parser reads type-only, re-exported and dynamic imports, and skips packages', () => {
  const source = [
    "import type { Store } from '../store/store.ts';",
    "import { type Clock, systemClock } from '../clock.ts';",
    "export { fail } from '../http/failures.ts';",
    "export type { Device } from '../domain/devices.ts';",
    "import { Hono } from 'hono';",
    "import assert from 'node:assert/strict';",
    "const pg = await import('./postgres/store.ts');",
    "// import { nothing } from './commented.ts';",
  ].join('\n');
  assert.deepEqual(relativeImports(source).sort(), [
    '../clock.ts',
    '../domain/devices.ts',
    '../http/failures.ts',
    '../store/store.ts',
    './postgres/store.ts',
  ]);
});

test('the checker refuses planted violations', () => {
  const planted: Graph = new Map([
    ['src/domain/devices.ts', ['src/store/store.ts']], // upward
    ['src/store/store.ts', ['src/domain/devices.ts']], // and the cycle it closes
    ['src/api/audit.ts', ['src/console/page_helpers.ts']], // door to door
    ['src/console/page_helpers.ts', ['src/views/html.ts']],
    ['src/views/html.ts', []],
    ['src/a/b.ts', []], // in no layer
    ['src/console/guard.ts', ['src/console/guard.ts']], // a file importing itself
  ]);
  assert.deepEqual(violations(planted), [
    'cycle: src/console/guard.ts',
    'cycle: src/domain/devices.ts -> src/store/store.ts',
    'door to door: src/api/audit.ts -> src/console/page_helpers.ts',
    'src/a/b.ts: in no layer',
    'upward: src/domain/devices.ts -> src/store/store.ts',
  ]);
  assert.deepEqual(
    cycles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a', 'd']],
        ['d', ['e']],
        ['e', ['d']],
        ['f', ['a']],
      ]),
    ),
    [
      ['d', 'e'],
      ['a', 'b', 'c'],
    ],
  );
});

test('the same layer and lower ones are allowed', () => {
  assert.deepEqual(
    violations(
      new Map([
        ['src/console/guard.ts', ['src/console/logout.ts', 'src/http/router.ts', 'src/clock.ts']],
        ['src/console/logout.ts', []],
        ['src/http/router.ts', ['src/views/html.ts']],
        ['src/views/html.ts', []],
        ['src/clock.ts', []],
        ['src/audit/audit_logger.ts', ['src/metrics/metrics.ts']],
        ['src/metrics/metrics.ts', []],
        ['bench/run.ts', ['src/server/serve.ts']],
        ['src/server/serve.ts', []],
      ]),
    ),
    [],
  );
});
