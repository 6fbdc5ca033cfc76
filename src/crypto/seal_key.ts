/**
 * The seal key file (`PADDOCK_SEAL_KEY_FILE`, docs/contract.md section 23): 32 random bytes in
 * base64 on one line, the root of the key every secret in the store's settings is sealed under. It
 * lives outside the store, so a copy of the database (a backup, a replica, a dump) holds no usable
 * secret. Made once, with mode 0600, and never written over.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

export const SEAL_KEY_BYTES = 32;

/** Why a seal key file cannot be used; `missing` is decided by the caller (made, or refused). */
export type SealKeyFault = 'missing' | 'unreadable' | 'malformed' | 'exposed';

export class SealKeyError extends Error {
  readonly fault: SealKeyFault;
  constructor(fault: SealKeyFault, message: string) {
    super(message);
    this.name = 'SealKeyError';
    this.fault = fault;
  }
}

/**
 * The key in `path`. A file that its group may write or others may read or write is refused, as
 * ssh refuses a private key others can read: group read stays allowed, for a key given to the
 * service through a group (a 0640 file, or a secret volume mounted with an fsGroup).
 */
export function readSealKey(path: string): Buffer {
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o027) !== 0)
      throw new SealKeyError(
        'exposed',
        `${path} may be read or written by others (mode 0${mode.toString(8)}): allow its owner alone (chmod 600)`,
      );
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof SealKeyError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SealKeyError('missing', `${path} does not exist`);
    throw new SealKeyError('unreadable', `cannot read ${path}: ${code ?? (err as Error).message}`);
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (!/^[A-Za-z0-9+/]{43}=$/.test(text.trim()) || key.length !== SEAL_KEY_BYTES)
    throw new SealKeyError('malformed', `${path} is not a seal key (one line: ${SEAL_KEY_BYTES} bytes in base64)`);
  return key;
}

/**
 * Makes a new key in `path` (and its directory, 0700) and returns it; when another process made
 * the file first, returns theirs. Written beside the name and linked to it once whole: never half a
 * key, never over one.
 */
export function makeSealKey(path: string): { key: Buffer; made: boolean } {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const key = randomBytes(SEAL_KEY_BYTES);
  const partial = `${path}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(partial, 'wx', 0o600);
  try {
    writeSync(fd, `${key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(partial, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: readSealKey(path), made: false };
  } finally {
    rmSync(partial, { force: true });
  }
  syncDirectory(dirname(path));
  return { key, made: true };
}

/** The new name survives a power cut once its directory is on disk (best effort where it cannot be). */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on a directory; the key itself is on disk.
  }
}
