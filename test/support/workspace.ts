/** Temporary folders for one test file, removed once its tests are done. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** Makes a new folder named `prefix…` under the system's temporary folder at each call. */
export function workspaces(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
