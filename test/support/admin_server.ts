/**
 * A real `paddock serve` on SQLite in a folder of its own, with the break-glass password given and
 * an access token made through the console, for the CLI's tests against a live server. `stop`
 * ends the server (SIGTERM) and removes the folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleClient } from '../multi/client.ts';
import { paddock } from './process.ts';

export interface AdminServer {
  dir: string;
  base: string;
  token: string;
  stop: () => Promise<void>;
}

export async function adminServer(tokenName: string, password: string): Promise<AdminServer> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-cli-'));
  const serve = paddock(['serve'], {
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_ADMIN_PASSWORD: password,
  });
  const base = (await serve.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
  const stop = async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    await rm(dir, { recursive: true, force: true });
  };
  return { dir, base, token: await consoleClient(() => password).accessToken(base, tokenName), stop };
}
