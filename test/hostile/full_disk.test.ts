// A full disk, for real: the data directory on a 24 MiB tmpfs filled by uploads and a filler file.
// Uploads answer 507 and lose nothing acknowledged; the log names the full disk (never "cannot
// rollback"); an operator can still sign in, revoke and delete, in the console and through the API
// (the store's reserve), and uploads resume by themselves once there is room. Needs root to mount;
// on CI that is a failure, not a skip.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { live } from '../support/live.ts';

function mountTmpfs(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    if (process.env.CI === 'true') throw new Error('the full-disk test needs to mount a tmpfs on CI', { cause: err });
    return `cannot mount a tmpfs here: ${(err as Error).message.split('\n')[0]}`;
  }
}

/** Writes zeros until the filesystem refuses: the disk is then full to the last block. */
async function fill(path: string): Promise<void> {
  const handle = await open(path, 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) await handle.write(block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    await handle.close();
  }
}

test('a full disk: 507 for uploads, nothing acknowledged lost, sign-in, revoke and delete still work, uploads resume', async (t) => {
  const mount = await mkdtemp(join(tmpdir(), 'paddock-fulldisk-'));
  const refused = mountTmpfs(mount);
  if (refused) {
    t.skip(refused);
    await rm(mount, { recursive: true, force: true });
    return;
  }
  const l = await live({ PADDOCK_DATA_DIR: join(mount, 'data') });
  try {
    const { device, credential } = await l.enroll('filler');
    const spare = await l.enroll('to-revoke');
    const token = await l.accessToken('full disk');
    const api = (method: string, path: string, json?: object) =>
      fetch(`${l.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(json) : undefined,
      });
    const put = (id: string, bytes: number) =>
      fetch(`${l.url}/v1/runs/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full', 'content-type': 'text/plain' },
        body: Buffer.alloc(bytes, (id.length % 26) + 65),
      });
    // Room taken by something else on the disk, given back later by the operator.
    const other = join(mount, 'other-files');
    await writeFile(other, Buffer.alloc(6 * 1024 * 1024));
    const stored: string[] = [];
    let answer: Response | undefined;
    for (let i = 0; i < 40; i++) {
      answer = await put(`big-${i}`, 1024 * 1024);
      if (answer.status !== 201) break;
      stored.push(`big-${i}`);
    }
    assert.ok(stored.length >= 5, `${stored.length} uploads before the disk filled`);
    await fill(join(mount, 'filler'));
    // Space SQLite already holds (a WAL grown by the refused upload) may still take a smaller run:
    // that is room, not loss. Uploads go on until the store itself is full, each acknowledged one kept.
    for (let i = 0; i < 20; i++) {
      answer = await put(`after-full-${i}`, 300 * 1024);
      if (answer.status !== 201) break;
      stored.push(`after-full-${i}`);
    }
    assert.equal(answer?.status, 507);
    assert.equal(await answer?.text(), "the server's storage is full; try again later\n");

    const records = l.logs.map((r) => JSON.stringify(r));
    assert.ok(
      records.some((r) => r.includes('"event":"store.full"') && r.includes('disk is full')),
      'the log names the full disk',
    );
    assert.ok(!records.some((r) => /cannot rollback/.test(r)), 'no record hides the cause');
    assert.ok(!records.some((r) => /"stack"/.test(r)), 'no stack trace');

    // An operator gets in, revokes and deletes while the disk is full.
    const { cookie, csrf } = await l.signIn();
    assert.ok(cookie.startsWith('service_admin='), 'signed in on a full disk');
    const revoke = await fetch(`${l.url}/devices/${spare.device}/revoke`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }),
      redirect: 'manual',
    });
    assert.equal(revoke.status, 303);
    const victims = stored.splice(0, 3);
    for (const id of victims) {
      const del = await fetch(`${l.url}/runs/${device}/${id}/delete`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf }),
        redirect: 'manual',
      });
      assert.equal(del.status, 303, `delete ${id}`);
    }

    // The same through the API, still on a full disk: a rename, a run deleted, a token minted.
    const apiVictim = stored.shift() ?? '';
    const writes = [
      await api('POST', `/devices/${device}/rename`, { name: 'renamed on a full disk' }),
      await api('DELETE', `/runs/${device}/${apiVictim}`),
      await api('POST', '/enroll-tokens', { uses: 1 }),
    ];
    assert.deepEqual(
      writes.map((r) => r.status),
      [200, 204, 201],
      'API writes use the reserve as the console does',
    );
    victims.push(apiVictim);

    // Space returns: uploads are stored again, without a restart.
    await unlink(join(mount, 'filler'));
    await unlink(other);
    assert.equal((await put('after-room', 300 * 1024)).status, 201);
    stored.push('after-room');
    for (const id of stored) {
      const view = await fetch(`${l.url}/runs/${device}/${id}`, { headers: { cookie } });
      assert.equal(view.status, 200, `${id} is intact`);
      await view.arrayBuffer();
    }
    for (const id of victims)
      assert.equal((await fetch(`${l.url}/runs/${device}/${id}`, { headers: { cookie } })).status, 404);
  } finally {
    await l.close();
    execFileSync('umount', [mount]);
    await rm(mount, { recursive: true, force: true });
  }
});
