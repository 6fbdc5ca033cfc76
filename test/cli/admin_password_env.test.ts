// docs/contract.md section 3, PADDOCK_ADMIN_PASSWORD: "when set, the break-glass password hash in the
// store is set to it at start", also over a hash stored earlier (by the variable or generated on
// a first start); a start with the variable set never generates or prints a password.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { paddock } from '../support/process.ts';

const A = 'first password, A side';
const B = 'second password, B side';
const GENERATED = /generated break-glass password/;

/** Starts `paddock serve`, waits until it listens; returns its base URL and a stop function. */
async function serve(dataDir: string, extra: Record<string, string>) {
  const p = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: dataDir, ...extra });
  const base = (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
  return {
    p,
    base,
    async stop() {
      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.output().stderr);
    },
  };
}

async function signIn(base: string, password: string, username = 'admin'): Promise<number> {
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return res.status;
}

test('PADDOCK_ADMIN_PASSWORD replaces the stored password at each start: B signs in, A no longer does', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-pwenv-'));
  try {
    const dataDir = join(dir, 'data');
    const first = await serve(dataDir, { PADDOCK_ADMIN_PASSWORD: A });
    assert.equal(await signIn(first.base, A), 303, 'A signs in on the first start');
    assert.equal(await signIn(first.base, B), 401);
    await first.stop();
    assert.doesNotMatch(first.p.output().stderr, GENERATED);

    const second = await serve(dataDir, { PADDOCK_ADMIN_PASSWORD: B });
    assert.equal(await signIn(second.base, B), 303, 'B signs in after the restart');
    assert.equal(await signIn(second.base, A), 401, 'A is no longer accepted');
    await second.stop();
    assert.doesNotMatch(second.p.output().stderr, GENERATED);
    for (const out of [first.p.output(), second.p.output()]) {
      for (const secret of [A, B]) assert.ok(!`${out.stdout}${out.stderr}`.includes(secret), 'no password printed');
    }

    // Without the variable the stored hash (B's) is kept and nothing is generated.
    const third = await serve(dataDir, {});
    assert.equal(await signIn(third.base, B), 303);
    assert.equal(await signIn(third.base, A), 401);
    await third.stop();
    assert.doesNotMatch(third.p.output().stderr, GENERATED);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('PADDOCK_ADMIN_PASSWORD also replaces a password generated on an earlier start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-pwgen-'));
  try {
    const dataDir = join(dir, 'data');
    const first = await serve(dataDir, {});
    const generated = (await first.p.waitFor(/\(shown once\): (\S+)/))[1] ?? '';
    assert.equal(await signIn(first.base, generated), 303);
    await first.stop();

    const second = await serve(dataDir, { PADDOCK_ADMIN_PASSWORD: B });
    assert.equal(await signIn(second.base, B), 303);
    assert.equal(await signIn(second.base, generated), 401);
    await second.stop();
    assert.doesNotMatch(second.p.output().stderr, GENERATED);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('PADDOCK_ADMIN_PASSWORD with PADDOCK_ADMIN_USER: the password belongs to that username only', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-pwuser-'));
  try {
    const s = await serve(join(dir, 'data'), { PADDOCK_ADMIN_PASSWORD: A, PADDOCK_ADMIN_USER: 'breakglass' });
    assert.equal(await signIn(s.base, A, 'breakglass'), 303);
    assert.equal(await signIn(s.base, A, 'admin'), 401);
    await s.stop();
    assert.doesNotMatch(s.p.output().stderr, GENERATED);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
