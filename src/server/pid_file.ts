/**
 * `<dataDir>/paddock.pid`: written by `paddock serve` while it holds a SQLite store, so that
 * `paddock restore` can refuse to replace the database under a running server. A file left by a
 * server that was killed names a process that is gone (or is no longer Paddock): it holds nothing.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const NAME = 'paddock.pid';

/** Writes this process's pid; the returned function removes the file if it is still ours. */
export function holdPidFile(dataDir: string): () => void {
  const path = join(dataDir, NAME);
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, `${process.pid}\n`, { mode: 0o600 });
  renameSync(partial, path);
  return () => {
    if (readPid(path) === process.pid) rmSync(path, { force: true });
  };
}

/** The pid of a live Paddock process holding the data directory, if there is one. */
export function serverHolding(dataDir: string): number | undefined {
  const pid = readPid(join(dataDir, NAME));
  if (pid === undefined || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else, so it may well be the server.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  try {
    // The pid may have been reused by another program since the server was killed.
    const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    return command.includes('paddock') ? pid : undefined;
  } catch {
    return pid;
  }
}

function readPid(path: string): number | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}
