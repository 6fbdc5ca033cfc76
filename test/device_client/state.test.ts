import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readState, writeState } from '../../src/device_client/state.ts';

const state = { server: 's', controlUrl: 'https://c', pin: 'sha256/x', device: 'd_1', credential: 'secret' };

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
