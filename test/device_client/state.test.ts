import assert from 'node:assert/strict';
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkStateDirectory, readState, writeState } from '../../src/device_client/state.ts';

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

// Section 23, as the sh client does: whoever may write the directory may replace the state, pins and all.
const root = process.getuid?.() === 0;
for (const [why, arrange] of [
  ['0777', (dir: string) => chmod(dir, 0o777)],
  ['0770', (dir: string) => chmod(dir, 0o770)],
  ['0707', (dir: string) => chmod(dir, 0o707)],
  ['owned by another uid (nobody)', (dir: string) => chown(dir, 65534, 65534)],
] as const) {
  test(
    `a state directory ${why} is refused, for reading and writing, before the file is touched`,
    {
      skip: why.startsWith('owned') && !root ? 'chown needs root' : false,
    },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'paddock-state-'));
      try {
        const path = join(dir, 'device.json');
        await writeState(path, state);
        await arrange(dir);
        const refused = new RegExp(
          `^Error: device state ${path}: its directory ${dir} (may be written by its group or others \\(mode 07[07][07]\\); chmod go-w|belongs to uid 65534, not to this user)`,
        );
        await assert.rejects(readState(path), refused);
        await assert.rejects(checkStateDirectory(path), refused);
        await assert.rejects(writeState(path, { ...state, credential: 'other' }), refused);
        assert.deepEqual(await readdir(dir), ['device.json']);
        assert.equal(JSON.parse(await readFile(path, 'utf8')).credential, state.credential);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
}

test('a state directory 0755 of this user is fine: the rule is about writing, not reading', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-state-'));
  try {
    await chmod(dir, 0o755);
    await writeState(join(dir, 'device.json'), state);
    assert.deepEqual(await readState(join(dir, 'device.json')), state);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
