// Finding: some damaged SQLite files were not caught. A store that fails its integrity check, or a
// database file that exists but is empty, stops `paddock serve` with exit 2 and one line; it never
// starts an empty installation over a lost one.
import assert from 'node:assert/strict';
import { open, mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { paddock } from '../support/process.ts';

/** A store with a device and some runs, closed and checkpointed, as a stopped server leaves it. */
async function storeWithData(dir: string): Promise<string> {
  const store = openSqliteStore(dir);
  await store.createEnrollToken({ hash: 't', owner: 'oidc:ann', createdBy: 'x', createdAt: 0, expiresAt: 9e12 });
  await store.enrollDevice({ tokenHash: 't', now: 1, deviceId: 'd1', name: 'n', credentialHash: 'c' });
  const body = new Uint8Array(3000).fill(65);
  for (let i = 0; i < 300; i++)
    await store.putRun({
      device: 'd1',
      id: `r${i}`,
      contentType: 'text/plain',
      privacy: 'full',
      size: body.length,
      uploadedAt: 2,
      body,
      sha256: String(i),
    });
  await store.close();
  const file = join(dir, 'paddock.db');
  const db = new DatabaseSync(file);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return file;
}

async function serveFails(dataDir: string): Promise<string[]> {
  const p = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: dataDir });
  assert.equal(await p.exited, 2);
  const { stdout, stderr } = p.output();
  assert.equal(stdout, '');
  return stderr.split('\n').filter((l) => l.trim() !== '');
}

test('finding: a store with garbage over its last 30 % stops paddock serve with exit 2 and one line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-damaged-'));
  try {
    const file = await storeWithData(dir);
    const { size } = await stat(file);
    const handle = await open(file, 'r+');
    const garbage = Buffer.alloc(Math.ceil(size * 0.3), 0x5a);
    await handle.write(garbage, 0, garbage.length, size - garbage.length);
    await handle.close();
    const lines = await serveFails(dir);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', /PADDOCK_DATA_DIR.*(integrity check|malformed|not a database)/);
    assert.doesNotMatch(lines[0] ?? '', /\n\s+at /);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('finding: a database file truncated to 0 bytes stops paddock serve with exit 2 and one line, and stays empty', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-damaged-'));
  try {
    const file = await storeWithData(dir);
    await truncate(file, 0);
    const lines = await serveFails(dir);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', /PADDOCK_DATA_DIR.*exists but is empty/);
    assert.equal((await stat(file)).size, 0, 'nothing was written over it');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an empty file is refused by the store too, while a new data directory starts a new store', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-damaged-'));
  try {
    await writeFile(join(dir, 'paddock.db'), '');
    assert.throws(
      () => openSqliteStore(dir),
      (err: Error) => /exists but is empty/.test(String((err.cause as Error).message)),
    );
    const fresh = openSqliteStore(join(dir, 'new'));
    await fresh.setSetting('k', 'v');
    await fresh.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
