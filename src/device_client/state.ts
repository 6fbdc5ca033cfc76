/** The device's state file: where it enrolled and its credential, readable by its owner only (0600). */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isPrivacyLevel, type PrivacyLevel } from '../domain/privacy.ts';

export interface DeviceState {
  server: string;
  controlUrl: string;
  pin: string;
  device: string;
  credential: string;
  /** The privacy ceiling the enrollment link carried; absent (older state files too) means `full`. */
  maxPrivacy?: PrivacyLevel;
}

/**
 * Writes the state atomically: a new temporary file beside it, created exclusively ('wx': never
 * an existing file or a planted symbolic link) with a random name and mode 0600 from the start,
 * then renamed over the state file.
 */
export async function writeState(path: string, state: DeviceState): Promise<void> {
  const tmp = `${path}.${randomBytes(12).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

export async function readState(path: string): Promise<DeviceState> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the device state ${path}: ${(err as Error).message}; enroll first`, { cause: err });
  }
  const s = doc as Partial<DeviceState>;
  for (const field of ['server', 'controlUrl', 'pin', 'device', 'credential'] as const) {
    if (typeof s[field] !== 'string' || s[field] === '') throw new Error(`device state ${path} has no ${field}`);
  }
  if (s.maxPrivacy !== undefined && !isPrivacyLevel(s.maxPrivacy))
    throw new Error(`device state ${path} has a bad maxPrivacy`);
  return s as DeviceState;
}
