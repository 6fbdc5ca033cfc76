/**
 * `npm test`'s runner: every `test/**\/*.test.ts` file, two at a time in processes of their own (as
 * `node --test --test-concurrency=2`), the slowest first. Two cores finish a list of jobs soonest
 * when the long ones start first: started in the order of their paths, a two-minute browser file
 * that came late ran alone at the end. SLOWEST holds the files measured slowest on this machine
 * (seconds, from a CI run); a file not in it runs after them, so the list is only ever a hint.
 *
 * The spec reporter prints to stdout; the exit code is 1 when any test failed, was cancelled, or a
 * file could not run. Arguments narrow the files (`npx node test/support/run_all.ts test/e2e`).
 */
import { glob } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

/** Seconds each of the slowest files took in the CI run of 2026-11-28 (both cores busy). */
export const SLOWEST: Readonly<Record<string, number>> = {
  'test/e2e/console.test.ts': 137,
  'test/cli/admin.test.ts': 84,
  'test/e2e/runs_reading.test.ts': 55,
  'test/e2e/groups.test.ts': 52,
  'test/device_client/sh_client.test.ts': 65,
  'test/store/postgres.test.ts': 42,
  'test/cli/backup.test.ts': 38,
  'test/e2e/screens.test.ts': 35,
  'test/store/group_plans.test.ts': 30,
  'test/store/owner_plans.test.ts': 28,
  'test/deploy/haproxy.test.ts': 29,
  'test/control/credential_rotation.test.ts': 27,
  'test/cli/collections.test.ts': 26,
  'test/hostile/backchannel_logout.test.ts': 25,
  'test/store/query_plans.test.ts': 25,
  'test/cli/errors.test.ts': 25,
  'test/store/fact_plans.test.ts': 24,
  'test/control/requests.test.ts': 23,
  'test/hostile/lifecycle.test.ts': 22,
  'test/cli/check.test.ts': 21,
  'test/cli/help.test.ts': 21,
  'test/cli/serve_process.test.ts': 20,
  'test/e2e/collections.test.ts': 20,
  'test/store/filter_plans.test.ts': 19,
  'test/cli/seal_key.test.ts': 18,
  'test/deploy/container.test.ts': 18,
  'test/device_client/key_rollover.test.ts': 17,
  'test/server/control_key_reload.test.ts': 16,
  'test/store/run_search_plans.test.ts': 16,
  'test/hostile/uploads_under_load.test.ts': 16,
  'test/store/dashboard_plans.test.ts': 16,
  'test/store/label_plans.test.ts': 15,
};

/** The files under `roots` (every test file when none is given), slowest first, then by path. */
export async function orderedFiles(roots: readonly string[] = []): Promise<string[]> {
  const files: string[] = [];
  for await (const file of glob('test/**/*.test.ts')) files.push(file);
  const chosen = roots.length === 0 ? files : files.filter((f) => roots.some((r) => f.startsWith(r)));
  return chosen.sort((a, b) => (SLOWEST[b] ?? 0) - (SLOWEST[a] ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
}

if (import.meta.main) {
  const files = await orderedFiles(process.argv.slice(2));
  if (files.length === 0) {
    process.stderr.write(`no test files under ${process.argv.slice(2).join(', ')}\n`);
    process.exit(2);
  }
  // Each file's process compiles the same sources: Node's compile cache keeps them between the
  // processes (about a quarter of a second a file, measured on the harness's imports), in the
  // checkout's own node_modules as bin/paddock.js keeps the server's.
  process.env.NODE_COMPILE_CACHE ??= join(
    import.meta.dirname,
    '..',
    '..',
    'node_modules',
    '.cache',
    'paddock-test-compile',
  );
  const stream = run({ files, concurrency: 2 });
  stream.on('test:fail', () => (process.exitCode = 1));
  stream.compose(spec).pipe(process.stdout);
}
