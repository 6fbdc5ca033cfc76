// Secrets sealed (docs/contract.md section 23), on the real `paddock serve` process: the first start
// makes the seal key file and stores no secret in plain; a store without its seal key, or with
// another, is refused (exit 2, one line naming the file) and left as it was; a store made before
// sealing is sealed at its first start and keeps its pins and sessions.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { readSealKey } from '../../src/crypto/seal_key.ts';
import { isSealed, openSetting, SEAL_CHECK_SETTING, settingsKey } from '../../src/store/sealed_settings.ts';
import { paddock } from '../support/process.ts';
import { workspaces } from '../support/workspace.ts';

const PASSWORD = 'a sealed store password';
const workspace = workspaces('paddock-seal-');

/** Serves until `work` is done, then stops with SIGTERM. */
async function serving<T>(dataDir: string, work: (base: string) => Promise<T>): Promise<T> {
  const p = paddock(['serve'], {
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_DATA_DIR: dataDir,
    PADDOCK_ADMIN_PASSWORD: PASSWORD,
  });
  try {
    return await work((await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '');
  } finally {
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
  }
}

async function signIn(base: string): Promise<string> {
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
    redirect: 'manual',
  });
  assert.equal(login.status, 303);
  return (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
}

const pinsOf = async (base: string) => ((await (await fetch(`${base}/v1/pins`)).json()) as { pins: string[] }).pins;
const signedIn = async (base: string, cookie: string) =>
  (await fetch(`${base}/devices`, { headers: { cookie }, redirect: 'manual' })).status === 200;

function settings(dataDir: string): Record<string, string> {
  const db = new DatabaseSync(join(dataDir, 'paddock.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT name, value FROM settings ORDER BY name').all();
    return Object.fromEntries(rows.map((r) => [String(r.name), String(r.value)]));
  } finally {
    db.close();
  }
}

/** A served store whose server has stopped: its data directory, the pins and a signed-in cookie. */
async function servedStore() {
  const dir = await workspace();
  const dataDir = join(dir, 'data');
  const { pins, cookie } = await serving(dataDir, async (base) => ({
    pins: await pinsOf(base),
    cookie: await signIn(base),
  }));
  return { dir, dataDir, pins, cookie };
}

/** A copy of the store's database alone, in a new data directory, as a backup or a stolen file is. */
async function copyWithoutKey(dataDir: string, to: string): Promise<string> {
  await mkdir(to, { mode: 0o700 });
  await copyFile(join(dataDir, 'paddock.db'), join(to, 'paddock.db'));
  return to;
}

test('the first start makes seal.key (0600), and the database holds no secret in plain', async () => {
  const { dataDir } = await servedStore();
  assert.equal((await stat(join(dataDir, 'seal.key'))).mode & 0o777, 0o600);
  const stored = settings(dataDir);
  for (const name of ['control_tls', 'session_key', 'webhook_seal_key', SEAL_CHECK_SETTING])
    assert.ok(isSealed(stored[name] ?? ''), `${name} is sealed`);
  const key = settingsKey(readSealKey(join(dataDir, 'seal.key')));
  const sessionKey = openSetting(key, 'session_key', stored.session_key ?? '');
  assert.equal(Buffer.from(sessionKey, 'base64').length, 32);
  assert.match(openSetting(key, 'control_tls', stored.control_tls ?? ''), /PRIVATE KEY/);
  // Every byte of the database files: no private key, no session key.
  for (const file of (await readdir(dataDir)).filter((f) => f.startsWith('paddock.db'))) {
    const bytes = await readFile(join(dataDir, file));
    assert.ok(!bytes.includes('PRIVATE KEY'), `${file} holds no PEM private key`);
    assert.ok(!bytes.includes(sessionKey), `${file} holds no session key`);
  }
});

test('a copy of the database without its seal key: exit 2, one line naming the file, nothing made', async () => {
  const { dir, dataDir } = await servedStore();
  const copy = await copyWithoutKey(dataDir, join(dir, 'copy'));
  const before = settings(copy);
  const key = join(copy, 'seal.key');
  for (const verb of [
    ['serve'],
    ['rotate-control-key'],
    ['rotate-control-key', '--compromised'],
    ['reset-admin-totp'],
  ]) {
    const p = paddock(verb, { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: copy });
    assert.equal(await p.exited, 2, verb.join(' '));
    assert.equal(
      p.output().stderr,
      `paddock: PADDOCK_SEAL_KEY_FILE: ${key} does not exist, and the store's secrets are sealed: give this instance the seal key file they were sealed with (it is in no database backup)\n`,
      verb.join(' '),
    );
  }
  await assert.rejects(stat(key), /ENOENT/, 'no seal key made in its place');
  assert.deepEqual(settings(copy), before, 'no new secret in place of the sealed ones');
});

test('another seal key: exit 2, one line naming the file; the right one serves the same pins', async () => {
  const { dir, dataDir, pins, cookie } = await servedStore();
  const copy = await copyWithoutKey(dataDir, join(dir, 'copy'));
  const before = settings(copy);
  const key = join(copy, 'seal.key');
  await writeFile(key, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const wrong = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: copy });
  assert.equal(await wrong.exited, 2);
  assert.equal(
    wrong.output().stderr,
    `paddock: PADDOCK_SEAL_KEY_FILE: ${key} is not the seal key the store's secrets are sealed with: give this instance that file (every instance the same one)\n`,
  );
  await writeFile(key, 'not a key\n', { mode: 0o600 });
  const malformed = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: copy });
  assert.equal(await malformed.exited, 2);
  assert.match(malformed.output().stderr, /^paddock: PADDOCK_SEAL_KEY_FILE: .*seal\.key is not a seal key [^\n]*\n$/);
  assert.deepEqual(settings(copy), before);
  // With the store's own key file the copy is the store: same pins, same sessions.
  await copyFile(join(dataDir, 'seal.key'), key);
  await serving(copy, async (base) => {
    assert.deepEqual(await pinsOf(base), pins);
    assert.ok(await signedIn(base, cookie), 'the session signed by the sealed key holds');
  });
});

test('a store made before sealing: sealed at its first start, with the same pins and sessions', async () => {
  const { dataDir, pins, cookie } = await servedStore();
  // As the previous version left it: every secret in plain, no check value, no key file.
  const key = settingsKey(readSealKey(join(dataDir, 'seal.key')));
  const db = new DatabaseSync(join(dataDir, 'paddock.db'));
  for (const [name, value] of Object.entries(settings(dataDir)))
    if (isSealed(value))
      db.prepare('UPDATE settings SET value = ? WHERE name = ?').run(openSetting(key, name, value), name);
  db.prepare('DELETE FROM settings WHERE name = ?').run(SEAL_CHECK_SETTING);
  db.close();
  await rm(join(dataDir, 'seal.key'));
  const plain = settings(dataDir);
  assert.match(plain.control_tls ?? '', /PRIVATE KEY/);

  await serving(dataDir, async (base) => {
    assert.deepEqual(await pinsOf(base), pins, 'the same control keys');
    assert.ok(await signedIn(base, cookie), 'the same session key');
  });
  assert.equal((await stat(join(dataDir, 'seal.key'))).mode & 0o777, 0o600);
  const sealed = settings(dataDir);
  const now = settingsKey(readSealKey(join(dataDir, 'seal.key')));
  for (const name of ['control_tls', 'session_key', 'webhook_seal_key']) {
    assert.ok(isSealed(sealed[name] ?? ''), `${name} is sealed`);
    assert.equal(openSetting(now, name, sealed[name] ?? ''), plain[name], `${name} kept its value`);
  }
});

test('backup says the seal key is not in the copy; restore refuses a sealed backup the key does not open', async () => {
  const { dir, dataDir } = await servedStore();
  const file = join(dir, 'backup.db');
  const made = paddock(['backup', file], { PADDOCK_DATA_DIR: dataDir });
  assert.equal(await made.exited, 0);
  assert.equal(
    made.output().stderr,
    `paddock backup: the seal key ${join(dataDir, 'seal.key')} is not in the backup: keep a copy of it too, apart from the backups; the store's secrets open only with it\n`,
  );
  const elsewhere = join(dir, 'elsewhere');
  const key = join(elsewhere, 'seal.key');
  const restore = async () => {
    const p = paddock(['restore', file], { PADDOCK_DATA_DIR: elsewhere });
    return { code: await p.exited, stderr: p.output().stderr };
  };
  const missing = await restore();
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`^paddock restore: PADDOCK_SEAL_KEY_FILE: ${key} does not exist, and .*\n$`));
  await mkdir(elsewhere, { mode: 0o700 });
  await writeFile(key, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const wrong = await restore();
  assert.equal(wrong.code, 2);
  assert.match(
    wrong.stderr,
    /is not the seal key .* was sealed with: put the backup's seal key file in place first\n$/,
  );
  await assert.rejects(stat(join(elsewhere, 'paddock.db')), /ENOENT/, 'nothing restored');
  await copyFile(join(dataDir, 'seal.key'), key);
  assert.equal((await restore()).code, 0);
});
