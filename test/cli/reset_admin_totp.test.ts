// docs/contract.md section 14: `paddock reset-admin-totp`, run on the server, removes the break-glass
// account's second factor from the store a running `paddock serve` reads; the audit trail records it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { paddock } from '../support/process.ts';
import { codeAt, secretOfPage } from '../support/totp.ts';

const PASSWORD = 'a break-glass password for the reset test';

async function post(base: string, path: string, fields: Record<string, string>, cookie = '') {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  return { status: res.status, cookie: res.headers.getSetCookie()[0]?.split(';')[0] ?? '', body: await res.text() };
}

const get = async (base: string, path: string, cookie: string) =>
  (await fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' })).text();

test('reset-admin-totp removes the factor while the server runs: the password alone signs in again; audited; idempotent', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-totp-reset-'));
  const env = { PADDOCK_DATA_DIR: join(dir, 'data'), PADDOCK_ADMIN_PASSWORD: PASSWORD };
  const server = paddock(['serve'], { ...env, PADDOCK_LISTEN: '127.0.0.1:0' });
  try {
    const base = (await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    const signedIn = await post(base, '/login', { username: 'admin', password: PASSWORD });
    assert.equal(signedIn.status, 303);
    const page = await get(base, '/totp', signedIn.cookie);
    const { secret, pending } = secretOfPage(page);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const enrolled = await post(base, '/totp', { csrf, pending, code: codeAt(secret, Date.now()) }, signedIn.cookie);
    assert.equal(enrolled.status, 200);
    assert.equal(
      (await post(base, '/login', { username: 'admin', password: PASSWORD })).status,
      401,
      'a code is needed now',
    );

    const reset = paddock(['reset-admin-totp'], env);
    assert.equal(await reset.exited, 0, reset.output().stderr);
    assert.match(reset.output().stderr, /second factor of "admin" removed/);
    assert.ok(!reset.output().stderr.includes(secret));
    const after = await post(base, '/login', { username: 'admin', password: PASSWORD });
    assert.equal(after.status, 303);
    // The reset ends the account's sessions (issue 34, finding 8): the one that enrolled is refused.
    assert.equal(
      (await fetch(`${base}/devices`, { headers: { cookie: signedIn.cookie }, redirect: 'manual' })).status,
      303,
    );

    const again = paddock(['reset-admin-totp'], env);
    assert.equal(await again.exited, 0);
    assert.match(again.output().stderr, /has no second factor; nothing changed/);

    const audit = await get(base, '/audit.jsonl?event=totp.reset', after.cookie);
    const rows = audit
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(rows.length, 1, audit);
    assert.equal(rows[0]?.account, 'system');
    assert.match(String(rows[0]?.detail), /local:admin/);
    assert.match(String(rows[0]?.detail), /sessions=1/);
    const log = server.output().stdout + server.output().stderr;
    assert.ok(!log.includes(secret), 'the secret is in no log record of the server');
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
});

test('reset-admin-totp exits as set-admin-password does: 2 for bad configuration or a database it cannot use, 2 for an argument', async () => {
  const bad = paddock(['reset-admin-totp'], { PADDOCK_LOG_LEVEL: 'loud' });
  assert.equal(await bad.exited, 2);
  assert.match(bad.output().stderr, /^paddock: .*PADDOCK_LOG_LEVEL/);
  const away = { PADDOCK_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
  const reset = paddock(['reset-admin-totp'], away);
  const setPassword = paddock(['set-admin-password'], away, 'a long enough password\n');
  assert.equal(await reset.exited, await setPassword.exited);
  assert.equal(await reset.exited, 2);
  assert.match(reset.output().stderr, /^paddock: PADDOCK_DATABASE_URL: cannot use the database/);
  const extra = paddock(['reset-admin-totp', 'now'], {});
  assert.equal(await extra.exited, 2);
});
