/** Baselines measured in the same run: a raw node:http server in its own process, answering from memory. */
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
  const child = spawn(
    process.execPath,
    [new URL('./baseline_server.ts', import.meta.url).pathname, file, contentType],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
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
