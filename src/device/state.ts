/** The device's state file: where it enrolled and its credential, readable by its owner only (0600). */
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';

export interface DeviceState {
  server: string;
  controlUrl: string;
  pin: string;
  device: string;
  credential: string;
}

export async function writeState(path: string, state: DeviceState): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  // mode applies only when the file is created; chmod makes sure a leftover temp file is 0600 too.
  await chmod(tmp, 0o600);
  await rename(tmp, path);
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
  return s as DeviceState;
}
