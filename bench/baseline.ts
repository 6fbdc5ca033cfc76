/**
 * Baselines measured in the same run: raw node:http servers in their own process, answering the
 * same bytes from memory, or (for the API) doing the same query and render (api_baseline_server.ts).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Baseline {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startBaseline(
  dir: string,
  name: string,
  body: Buffer | string,
  contentType: string,
): Promise<Baseline> {
  const file = join(dir, `${name}.body`);
  await writeFile(file, body);
  return startBaselineServer(new URL('./baseline_server.ts', import.meta.url).pathname, [file, contentType]);
}

/**
 * A baseline server script of this folder, in its own process; it prints its port when it listens.
 * It runs on V8's and glibc's defaults, as a minimal server would be started (issue 38): a baseline
 * on Paddock's own flags hid what those flags cost. `flags` and `env` add settings (the
 * young-generation table measures its baseline at each size too).
 */
export async function startBaselineServer(
  script: string,
  args: string[],
  opts: { flags?: readonly string[]; env?: Record<string, string> } = {},
): Promise<Baseline> {
  const child = spawn(process.execPath, [...(opts.flags ?? []), script, ...args], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${chunk.toString().trim()}`,
    pid: child.pid ?? 0,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
