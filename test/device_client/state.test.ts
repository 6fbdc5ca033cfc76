import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readState, writeState } from '../../src/device_client/state.ts';

const pin = `sha256/${'A'.repeat(43)}=`;
const next = `sha256/${'B'.repeat(43)}=`;
const state = { server: 's', controlUrl: 'https://c', pins: [pin, next], device: 'd_1', credential: 'secret' };

test('the state file is replaced atomically, 0600 even over a wider one, and no temporary file is left', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-state-'));
  try {
    const path = join(dir, 'device.json');
    await writeFile(path, '{}', { mode: 0o644 });
    await chmod(path, 0o644);
    await writeState(path, state);
    assert.equal(((await stat(path)).mode & 0o777).toString(8), '600');
    assert.deepEqual(await readState(path), state);
    assert.deepEqual(await readdir(dir), ['device.json']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a state file that cannot be written leaves nothing behind and says why', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-state-'));
  try {
    await assert.rejects(writeState(join(dir, 'missing', 'device.json'), state), /ENOENT/);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a state file from before the pin set (one "pin") reads as a set of one; bad pins are refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-state-'));
  try {
    const path = join(dir, 'device.json');
    const rest = {
      server: state.server,
      controlUrl: state.controlUrl,
      device: state.device,
      credential: state.credential,
    };
    await writeFile(path, JSON.stringify({ ...rest, pin }));
    assert.deepEqual(await readState(path), { ...rest, pins: [pin] });
    for (const pins of [[], ['sha256/x'], [pin, next, pin], 'sha256/x']) {
      await writeFile(path, JSON.stringify({ ...rest, pins }));
      await assert.rejects(readState(path), /has no pins/);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
