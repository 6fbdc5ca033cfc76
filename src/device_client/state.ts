/** The device's state file: where it enrolled and its credential, readable by its owner only (0600). */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { MAX_PINS, PIN } from '../domain/pins.ts';
import { isPrivacyLevel, type PrivacyLevel } from '../domain/privacy.ts';
import { factsFromJson } from '../domain/facts.ts';

export interface DeviceState {
  server: string;
  controlUrl: string;
  /** The control key's pins this device trusts, current first (docs/contract.md section 16). */
  pins: string[];
  /**
   * The set the last pin update replaced, still trusted until `until` (an ISO time): for a minute
   * after a rotation another instance sharing the store may still serve the old key.
   */
  retiredPins?: { pins: string[]; until: string };
  device: string;
  credential: string;
  /** The facts the server last accepted from this device (device_client/facts.ts); absent: none yet. */
  facts?: Record<string, string>;
  /** The privacy ceiling the enrollment link carried; absent (older state files too) means `full`. */
  maxPrivacy?: PrivacyLevel;
}

/**
 * Writes the state atomically: a new temporary file beside it, created exclusively ('wx': never
 * an existing file or a planted symbolic link) with a random name and mode 0600 from the start,
 * then renamed over the state file.
 */
export async function writeState(path: string, state: DeviceState): Promise<void> {
  await checkStateDirectory(path);
  const tmp = `${path}.${randomBytes(12).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Refuses a state file in a directory another user may write (docs/contract.md section 23, as the sh
 * client does): whoever may write the directory may put a file of their own in its place, pins and
 * all. OpenSSH's StrictModes rule: owned by this user, not writable by its group or others. A
 * directory that does not exist is left to the read or write to report; Windows has no such mode.
 */
export async function checkStateDirectory(path: string): Promise<void> {
  const uid = process.getuid?.();
  const dir = dirname(resolve(path));
  const found = uid === undefined ? undefined : await stat(dir).catch(() => undefined);
  if (found === undefined) return;
  const mode = (found.mode & 0o7777).toString(8).padStart(4, '0');
  const why =
    found.uid !== uid
      ? `belongs to uid ${found.uid}, not to this user (uid ${uid}); use a directory of your own`
      : (found.mode & 0o022) !== 0
        ? `may be written by its group or others (mode ${mode}); chmod go-w ${dir}, or use a directory of your own`
        : undefined;
  if (why !== undefined)
    throw new Error(`device state ${path}: its directory ${dir} ${why} (another user could replace the state)`);
}

export async function readState(path: string): Promise<DeviceState> {
  await checkStateDirectory(path);
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the device state ${path}: ${(err as Error).message}; enroll first`, { cause: err });
  }
  const s = doc as Partial<DeviceState> & { pin?: unknown };
  // A state file written before the pin set (issue 36) holds the link's one pin.
  if (s.pins === undefined && typeof s.pin === 'string') {
    s.pins = [s.pin];
    delete s.pin;
  }
  for (const field of ['server', 'controlUrl', 'device', 'credential'] as const) {
    if (typeof s[field] !== 'string' || s[field] === '') throw new Error(`device state ${path} has no ${field}`);
  }
  if (!isPinSet(s.pins)) throw new Error(`device state ${path} has no pins`);
  if (s.retiredPins !== undefined && !(isPinSet(s.retiredPins.pins) && typeof s.retiredPins.until === 'string'))
    throw new Error(`device state ${path} has bad retiredPins`);
  if (s.maxPrivacy !== undefined && !isPrivacyLevel(s.maxPrivacy))
    throw new Error(`device state ${path} has a bad maxPrivacy`);
  // Facts that do not read as a set are only forgotten: the next report sends them again.
  if (s.facts !== undefined && !factsFromJson(s.facts).ok) delete s.facts;
  return s as DeviceState;
}

function isPinSet(pins: unknown): pins is string[] {
  return (
    Array.isArray(pins) &&
    pins.length >= 1 &&
    pins.length <= MAX_PINS &&
    pins.every((pin) => typeof pin === 'string' && PIN.test(pin))
  );
}
