// Two real `paddock serve` processes on one PostgreSQL database: what one does, the other sees at
// once; and a database that goes away and comes back loses no acknowledged upload.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { createSchema, dropSchemas, freshSchema, postgresAvailable, urlWithSchema } from '../support/postgres.ts';

const available = await postgresAvailable();
const PASSWORD = 'two instances password';
let a: { p: PaddockProcess; base: string };
let b: { p: PaddockProcess; base: string };

async function start(url: string): Promise<{ p: PaddockProcess; base: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-pg-'));
  const p = paddock(['serve'], {
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_BASE_URL: 'http://127.0.0.1:8080',
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_DATABASE_URL: url,
    PADDOCK_ADMIN_PASSWORD: PASSWORD,
  });
  return { p, base: (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '' };
}

const form = (fields: Record<string, string>, cookie?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual',
});

async function signIn(base: string) {
  const res = await fetch(`${base}/login`, form({ username: 'admin', password: PASSWORD }));
  assert.equal(res.status, 303);
  const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const page = await (await fetch(`${base}/devices`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '' };
}

async function mintToken(base: string): Promise<string> {
  const { cookie, csrf } = await signIn(base);
  const page = await (await fetch(`${base}/enroll-tokens`, form({ csrf }, cookie))).text();
  return /token=([A-Za-z0-9_-]{43})/.exec(page)?.[1] ?? '';
}

const enroll = (base: string, token: string) =>
  fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });

const upload = (base: string, credential: string, id: string, body = `run ${id}`) =>
  fetch(`${base}/v1/runs/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
    body,
  });

async function device(base: string) {
  const res = await enroll(base, await mintToken(base));
  return (await res.json()) as { device: string; credential: string };
}

function pgctl(action: 'stop' | 'start' | 'restart') {
  const version = readdirSync('/etc/postgresql')[0] ?? '';
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', action], { stdio: 'ignore' });
}

if (!available) {
  test('two instances on PostgreSQL (skipped: no PostgreSQL and not on CI)', { skip: true }, () => undefined);
} else {
  describe('two instances on one database', () => {
    before(async () => {
      const schema = freshSchema();
      await createSchema(schema);
      [a, b] = await Promise.all([start(urlWithSchema(schema)), start(urlWithSchema(schema))]);
    });
    after(async () => {
      a.p.child.kill('SIGTERM');
      b.p.child.kill('SIGTERM');
      await Promise.all([a.p.exited, b.p.exited]);
      await dropSchemas();
    });

    test('a session created on one is valid on the other (the session key is shared through the database)', async () => {
      const { cookie } = await signIn(a.base);
      const res = await fetch(`${b.base}/`, { headers: { cookie }, redirect: 'manual' });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /Signed in as <strong>admin<\/strong>/);
    });

    test('throttle failures counted on one delay attempts on the other', async () => {
      for (let i = 0; i < 3; i++) {
        assert.equal(
          (await fetch(`${a.base}/login`, form({ username: 'admin', password: 'wrong guess!' }))).status,
          401,
        );
      }
      const started = Date.now();
      assert.equal((await fetch(`${b.base}/login`, form({ username: 'admin', password: 'wrong guess!' }))).status, 401);
      assert.ok(Date.now() - started >= 950, `the fourth failure waited ${Date.now() - started} ms`);
      // A success resets the count for both.
      assert.equal((await fetch(`${b.base}/login`, form({ username: 'admin', password: PASSWORD }))).status, 303);
    });

    test('a token minted on one enrolls exactly once across both under concurrent attempts', async () => {
      const token = await mintToken(a.base);
      const statuses = (
        await Promise.all(Array.from({ length: 10 }, (_, i) => enroll(i % 2 ? a.base : b.base, token)))
      ).map((r) => r.status);
      assert.deepEqual(statuses.sort(), [201, 401, 401, 401, 401, 401, 401, 401, 401, 401]);
    });

    test('the same run id at once on both: stored once; other bytes: one 201 and one 409', async () => {
      const { credential } = await device(a.base);
      const same = await Promise.all([upload(a.base, credential, 'twin'), upload(b.base, credential, 'twin')]);
      assert.deepEqual(same.map((r) => r.status).sort(), [200, 201]);
      const other = await Promise.all([
        upload(a.base, credential, 'split', 'one'),
        upload(b.base, credential, 'split', 'two'),
      ]);
      assert.deepEqual(other.map((r) => r.status).sort(), [201, 409]);
    });

    test('a revoke on one refuses uploads on the other at once', async () => {
      const { device: id, credential } = await device(a.base);
      assert.equal((await upload(b.base, credential, 'before')).status, 201);
      const { cookie, csrf } = await signIn(a.base);
      assert.equal((await fetch(`${a.base}/devices/${id}/revoke`, form({ csrf }, cookie))).status, 303);
      assert.equal((await upload(b.base, credential, 'after')).status, 401);
    });

    test('database down: 503 in plain text, /healthz answers, the self-test shows the store failing; back up: service resumes', async () => {
      const { cookie } = await signIn(a.base);
      pgctl('stop');
      try {
        const list = await fetch(`${a.base}/runs`, { headers: { cookie } });
        assert.equal(list.status, 503);
        assert.match(list.headers.get('content-type') ?? '', /^text\/plain/);
        const text = await list.text();
        assert.match(text, /store is unavailable/);
        assert.doesNotMatch(text, /at .*\.ts:\d+/);
        assert.deepEqual(await (await fetch(`${b.base}/healthz`)).json(), { ok: true, version: '0.1.0' });
        // Instance a has not run its self-test yet, so nothing cached hides the failure.
        const dash = await fetch(`${a.base}/`, { headers: { cookie } });
        assert.equal(dash.status, 200);
        assert.match(await dash.text(), /store read\/write<\/th>\s*<td>FAILED/);
      } finally {
        pgctl('start');
      }
      for (let i = 0; i < 50; i++) {
        if ((await fetch(`${a.base}/runs`, { headers: { cookie } })).status === 200) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal((await fetch(`${a.base}/runs`, { headers: { cookie } })).status, 200, 'resumed without a restart');
    });

    test('a database restart in the middle of a bounded load loses no acknowledged upload', async () => {
      const devices = await Promise.all([device(a.base), device(b.base)]);
      const acknowledged: Array<{ device: string; id: string }> = [];
      let sent = 0;
      let restarted = false;
      const deadline = Date.now() + 40_000;
      // Four clients, 40 uploads each, retrying an upload until it is acknowledged (or time runs out).
      await Promise.all(
        Array.from({ length: 4 }, async (_, client) => {
          const { device: id, credential } = devices[client % 2] ?? { device: '', credential: '' };
          const base = client % 2 ? b.base : a.base;
          for (let n = 0; n < 40; n++) {
            const runId = `load-${client}-${n}`;
            if (++sent === 60 && !restarted) {
              restarted = true;
              pgctl('restart');
            }
            while (Date.now() < deadline) {
              const status = await upload(base, credential, runId).then(
                (r) => r.status,
                () => 0,
              );
              if (status === 201 || status === 200) {
                acknowledged.push({ device: id, id: runId });
                break;
              }
              assert.ok(status === 503 || status === 0, `unexpected status ${status}`);
              await new Promise((r) => setTimeout(r, 100));
            }
          }
        }),
      );
      assert.ok(restarted);
      assert.equal(acknowledged.length, 160, 'every upload was acknowledged in the end');
      const { cookie } = await signIn(a.base);
      for (const run of acknowledged) {
        const res = await fetch(`${a.base}/runs/${run.device}/${run.id}`, { headers: { cookie } });
        assert.equal(res.status, 200, `${run.device}/${run.id} readable`);
        await res.arrayBuffer();
      }
    });
  });
}
