// The reference client rotates its credential when the server asks (docs/contract.md section 16),
// end to end over TLS on one port: an administrator's button in the console, then `paddock device
// upload` sees Paddock-Rotate, rotates, keeps the new credential in its state file before using it,
// and goes on; a second process of the same device that still holds the old credential takes the
// one kept in the state file before it asks (presenting the replaced one would be reuse).
import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { enroll, uploadRun } from '../../src/device_client/client.ts';
import { readState, writeState } from '../../src/device_client/state.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import { paddock } from '../support/process.ts';
import { freePort, httpsRequest, lookup, type TlsFixture, tlsFixture } from '../support/tls_fixture.ts';
import { tlsServerEnv } from '../support/tls_server.ts';

const PASSWORD = 'rotation loop password';
let fx: TlsFixture;
let server: RunningServer;
let admin: string;
let control: string;
const logs = memoryLogger();

before(async () => {
  fx = await tlsFixture();
  const port = await freePort();
  admin = `https://admin.test:${port}`;
  control = `https://control.test:${port}`;
  const config = loadConfig({ ...tlsServerEnv(fx, port), PADDOCK_ADMIN_PASSWORD: PASSWORD });
  server = await startServer(config, { logger: logs, announce: () => undefined });
});
after(() => server.close());

async function console_() {
  const ca = fx.admin.certPem;
  const login = await httpsRequest(`${admin}/login`, {
    ca,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: PASSWORD }).toString(),
  });
  const cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  const page = await httpsRequest(`${admin}/devices`, { ca, headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const post = (path: string) =>
    httpsRequest(`${admin}${path}`, {
      ca,
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }).toString(),
    });
  return { post };
}

/** A device enrolled with a link minted in the console, its state kept in a file. */
async function enrolled(file: string) {
  const { post } = await console_();
  const minted = await post('/enroll-tokens');
  const link = (/(paddock:\/\/enroll\?[^<]+)</.exec(minted.body)?.[1] ?? '').replaceAll('&amp;', '&');
  const state = await enroll(link, 'rotating', { lookup, discoveryCa: fx.admin.certPem });
  await writeState(file, state);
  return { state, post };
}

/** What the control API answers this credential (an upload of a run with this id). */
async function put(credential: string, id: string) {
  return (
    await httpsRequest(`${control}/v1/runs/${id}`, {
      ca: fx.control.certPem,
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
      body: id,
    })
  ).status;
}

test('asked by an administrator, `paddock device upload` rotates, keeps the new credential first, and goes on', async () => {
  const file = join(fx.dir, 'device.json');
  const { state, post } = await enrolled(file);
  const old = state.credential;
  assert.equal((await post(`/devices/${state.device}/rotate`)).status, 303);

  const run = join(fx.dir, 'run.txt');
  await writeFile(run, 'pressure=1.2\n');
  const resolve = ['--resolve', 'admin.test:127.0.0.1', '--resolve', 'control.test:127.0.0.1'];
  const first = paddock(['device', 'upload', run, '--privacy', 'full', '--id', 'u1', '--state', file, ...resolve], {});
  assert.equal(await first.exited, 0, first.output().stderr);
  assert.match(first.output().stderr, /the credential was rotated: the new one is saved and in use/);
  const kept = await readState(file);
  assert.notEqual(kept.credential, old, 'the new credential is in the state file');
  assert.equal(kept.device, state.device);
  assert.equal(((await stat(file)).mode & 0o777).toString(8), '600', 'still readable by its owner only');
  // Its calls after the rotation (the facts it reports first, then the upload) used the new one.
  assert.equal(await put(old, 'o1'), 401, 'the new credential is in use: the old one is refused');
  // Presented again, the old one made the device wait (reuse is theft); approved, the new one goes on.
  assert.equal(await put(kept.credential, 'n1'), 403);
  assert.equal((await post(`/devices/${state.device}/approve`)).status, 303);
  assert.equal(await put(kept.credential, 'n1'), 201);

  const second = paddock(['device', 'upload', run, '--privacy', 'full', '--id', 'u2', '--state', file, ...resolve], {});
  assert.equal(await second.exited, 0, second.output().stderr);
  assert.doesNotMatch(second.output().stderr, /rotated/, 'asked once: the new credential is not due');
  assert.equal((await readState(file)).credential, kept.credential);
  assert.equal(
    logs.records.filter((r) => r.event === 'device.credential_rotated' && r.device === state.device).length,
    1,
  );
  assert.ok(!JSON.stringify(logs.records).includes(kept.credential), 'the new credential is in no log record');
});

test('a second process still holding the replaced credential takes the one kept in the state file', async () => {
  const file = join(fx.dir, 'second.json');
  const { state, post } = await enrolled(file);
  const watching = structuredClone(state);
  const io = { lookup, saveState: (s: typeof state) => writeState(file, s), loadState: () => readState(file) };
  const lines: string[] = [];
  assert.equal((await post(`/devices/${state.device}/rotate`)).status, 303);
  // One process is asked, rotates and saves; its next call uses the new credential, which ends the old.
  const body = new TextEncoder().encode('x');
  await uploadRun(state, { bytes: body, contentType: 'text/plain', privacy: 'full', id: 'a1' }, io);
  assert.notEqual(state.credential, watching.credential);
  await uploadRun(state, { bytes: body, contentType: 'text/plain', privacy: 'full', id: 'a2' }, io);
  // The other, which held the old one in memory, reads the state file before it asks, and goes on
  // with the new one: it never presents the replaced one, which would make the device wait.
  const done = await uploadRun(
    watching,
    { bytes: body, contentType: 'text/plain', privacy: 'full', id: 'b1' },
    { ...io, log: (line) => lines.push(line) },
  );
  assert.equal(done.status, 201);
  assert.equal(watching.credential, state.credential);
  assert.deepEqual(lines, ['using the credential another process of this device rotated to']);
  assert.equal(JSON.parse(await readFile(file, 'utf8')).credential, state.credential);
});

test('a new credential that cannot be saved is not used: the old one goes on, and the next answer asks again', async () => {
  const file = join(fx.dir, 'unsaved.json');
  const { state, post } = await enrolled(file);
  const old = state.credential;
  const lines: string[] = [];
  assert.equal((await post(`/devices/${state.device}/rotate`)).status, 303);
  const body = new TextEncoder().encode('x');
  const broken = {
    lookup,
    saveState: async () => {
      throw new Error('disk full');
    },
    log: (line: string) => lines.push(line),
  };
  await uploadRun(state, { bytes: body, contentType: 'text/plain', privacy: 'full', id: 'c1' }, broken);
  assert.equal(state.credential, old, 'kept the old one');
  assert.match(lines.join('\n'), /the new one could not be saved \(disk full\); the current one is kept/);
  // Saved this time: asking again with the old credential answers the same new one, now kept.
  await uploadRun(
    state,
    { bytes: body, contentType: 'text/plain', privacy: 'full', id: 'c2' },
    {
      lookup,
      saveState: (s: typeof state) => writeState(file, s),
    },
  );
  assert.notEqual(state.credential, old);
  assert.equal((await readState(file)).credential, state.credential);
  assert.equal(await put(state.credential, 'c3'), 201);
  assert.equal(
    logs.records.filter((r) => r.event === 'device.credential_rotated' && r.device === state.device).length,
    1,
  );
});
