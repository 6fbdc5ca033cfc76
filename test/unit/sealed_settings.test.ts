// Secrets sealed (docs/contract.md section 23): the seal key file, and the wrapper that seals the
// secret settings, on a store of settings in memory.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeSealKey, readSealKey, SealKeyError } from '../../src/crypto/seal_key.ts';
import { StoreError } from '../../src/store/errors.ts';
import {
  checkOpens,
  isSealed,
  openSetting,
  sealCheck,
  sealedSettings,
  SECRET_SETTINGS,
  settingsKey,
} from '../../src/store/sealed_settings.ts';
import type { SettingsStore } from '../../src/store/store.ts';
import { workspaces } from '../support/workspace.ts';

const workspace = workspaces('paddock-seal-');

/** A store's settings methods over a Map, as stored_settings.ts behaves. */
function memorySettings() {
  const rows = new Map<string, string>();
  const store: Pick<SettingsStore, 'getSetting' | 'setSettingIfAbsent' | 'setSetting' | 'replaceSetting'> = {
    getSetting: async (name) => rows.get(name),
    async setSettingIfAbsent(name, value) {
      if (!rows.has(name)) rows.set(name, value);
      return rows.get(name) as string;
    },
    setSetting: async (name, value) => void rows.set(name, value),
    async replaceSetting(name, expected, value) {
      if (rows.get(name) !== expected) return false;
      rows.set(name, value);
      return true;
    },
  };
  return { rows, store };
}

const key = settingsKey(randomBytes(32));

test('a secret setting is stored sealed and read back plain; other settings pass through', async () => {
  const { rows, store } = memorySettings();
  const sealed = sealedSettings(store, key);
  assert.equal(await sealed.setSettingIfAbsent(SECRET_SETTINGS.sessionKey, 'k1'), 'k1');
  assert.equal(await sealed.setSettingIfAbsent(SECRET_SETTINGS.sessionKey, 'k2'), 'k1', 'the first stays');
  assert.ok(isSealed(rows.get('session_key') ?? ''), 'stored sealed');
  assert.ok(!(rows.get('session_key') ?? '').includes('k1'));
  assert.equal(await sealed.getSetting('session_key'), 'k1');
  await sealed.setSetting('control_tls', '{"keyPem":"-----BEGIN PRIVATE KEY-----"}');
  assert.ok(!(rows.get('control_tls') ?? '').includes('PRIVATE KEY'));
  assert.equal(await sealed.getSetting('control_tls'), '{"keyPem":"-----BEGIN PRIVATE KEY-----"}');
  await sealed.setSetting('retention.last_sweep', '{"at":1}');
  assert.equal(rows.get('retention.last_sweep'), '{"at":1}', 'not a secret: as it is');
  assert.equal(await sealed.getSetting('absent'), undefined);
});

test('compare and set compares the plain value and replaces the sealed one', async () => {
  const { rows, store } = memorySettings();
  const sealed = sealedSettings(store, key);
  await sealed.setSetting('control_tls', 'one');
  assert.equal(await sealed.replaceSetting('control_tls', 'other', 'two'), false, 'held another');
  assert.equal(await sealed.replaceSetting('control_tls', 'one', 'two'), true);
  assert.equal(await sealed.getSetting('control_tls'), 'two');
  assert.equal(await sealed.replaceSetting('control_tls', 'one', 'three'), false, 'one is gone');
  assert.equal(await sealed.replaceSetting('totp_key', 'x', 'y'), false, 'none stored');
  assert.equal(rows.has('totp_key'), false);
  rows.set('plain', 'a');
  assert.equal(await sealed.replaceSetting('plain', 'a', 'b'), true);
  assert.equal(rows.get('plain'), 'b');
});

test('a sealed value opens only under its key and its own name; a plain one is read as it is', async () => {
  const { rows, store } = memorySettings();
  await sealedSettings(store, key).setSetting('session_key', 'secret');
  const other = sealedSettings(store, settingsKey(randomBytes(32)));
  await assert.rejects(other.getSetting('session_key'), StoreError);
  // Moved to another secret's row, it does not open: the name is its additional data.
  rows.set('totp_key', rows.get('session_key') ?? '');
  await assert.rejects(sealedSettings(store, key).getSetting('totp_key'), /totp_key does not open under the seal key/);
  assert.equal(openSetting(key, 'webhook_seal_key', 'plain-from-an-older-store'), 'plain-from-an-older-store');
});

test('the check value tells the right key from a wrong one, and a plain value is no check', () => {
  const check = sealCheck(key);
  assert.equal(checkOpens(key, check), true);
  assert.equal(checkOpens(settingsKey(randomBytes(32)), check), false);
  assert.equal(checkOpens(key, 'paddock seal check v1'), false);
  assert.equal(checkOpens(key, 'sealed:garbage'), false);
});

test('the seal key file: made with mode 0600, read back; never written over', async () => {
  const dir = await workspace();
  const path = join(dir, 'nested', 'seal.key');
  const made = makeSealKey(path);
  assert.equal(made.made, true);
  assert.equal(made.key.length, 32);
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.equal((await stat(join(dir, 'nested'))).mode & 0o777, 0o700);
  assert.match(await readFile(path, 'utf8'), /^[A-Za-z0-9+/]{43}=\n$/);
  assert.deepEqual(readSealKey(path), made.key);
  // A second maker (another process starting at once) gets the first one's key.
  const again = makeSealKey(path);
  assert.deepEqual(again, { key: made.key, made: false });
});

test('a seal key file missing, malformed, or open to others is refused with a reason naming it', async () => {
  const dir = await workspace();
  const path = join(dir, 'seal.key');
  const fault = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof SealKeyError);
      assert.ok(err.message.includes(path), err.message);
      return err.fault;
    }
    return 'none';
  };
  assert.equal(
    fault(() => readSealKey(path)),
    'missing',
  );
  await writeFile(path, 'short\n', { mode: 0o600 });
  assert.equal(
    fault(() => readSealKey(path)),
    'malformed',
  );
  await writeFile(path, `${randomBytes(31).toString('base64')}\n`);
  assert.equal(
    fault(() => readSealKey(path)),
    'malformed',
  );
  await writeFile(path, `${randomBytes(32).toString('base64')}\n`);
  for (const [mode, expected] of [
    [0o644, 'exposed'],
    [0o620, 'exposed'],
    [0o602, 'exposed'],
    [0o640, 'none'],
    [0o400, 'none'],
  ] as const) {
    await chmod(path, mode);
    assert.equal(
      fault(() => readSealKey(path)),
      expected,
      mode.toString(8),
    );
  }
});
