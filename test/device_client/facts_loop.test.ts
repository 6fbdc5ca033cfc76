// The reference client's facts (docs/contract.md section 16) against a real server over TLS:
// `paddock device enroll` reports os, os_version, arch, hostname and client_version with the
// enrollment; upload and watch report them again only when they changed since the last report
// (kept in the state file); `paddock device facts` reports them at once; a refused report never
// stops the upload or watch it precedes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { localFacts, reportChangedFacts } from '../../src/device_client/facts.ts';
import { type DeviceState, readState, writeState } from '../../src/device_client/state.ts';
import { watch } from '../../src/device_client/watch.ts';
import { CLIENT_FACTS } from '../../src/domain/facts.ts';
import type { RunningServer } from '../../src/server/serve.ts';
import { startTlsServer, type TlsServer } from '../support/tls_server.ts';
import { paddock } from '../support/process.ts';
import { lookup, type TlsFixture } from '../support/tls_fixture.ts';

const RESOLVE = ['--resolve', 'admin.test:127.0.0.1', '--resolve', 'control.test:127.0.0.1'];
let tls: TlsServer;
let fx: TlsFixture;
let server: RunningServer;

before(async () => {
  tls = await startTlsServer('facts loop');
  ({ fx, server } = tls);
});
after(() => server.close());
const api: TlsServer['api'] = (...args) => tls.api(...args);

/** The facts the server holds of a device, and when they were reported. */
async function held(device: string) {
  const d = (await api('GET', `/devices/${device}`)).body as {
    facts: Record<string, string>;
    facts_reported_at: string;
  };
  return { facts: d.facts, at: d.facts_reported_at };
}

test('enroll reports the facts; upload, watch and `facts` report them again only when they changed', async () => {
  const minted = await api('POST', '/enroll-tokens', { uses: 2 });
  assert.equal(minted.status, 201);
  const file = join(fx.dir, 'facts-device.json');
  const enrolled = paddock(
    ['device', 'enroll', String(minted.body?.link), '--state', file, '--ca', fx.admin.certFile, ...RESOLVE],
    {},
  );
  assert.equal(await enrolled.exited, 0, enrolled.output().stderr);
  const state = await readState(file);
  const here = { ...localFacts() };
  assert.deepEqual(Object.keys(here).sort(), [...CLIENT_FACTS].sort());
  assert.equal(here.os, process.platform);
  assert.deepEqual(state.facts, here, 'the state keeps what was reported');
  const first = await held(state.device);
  assert.deepEqual(first.facts, here, 'reported with the enrollment');
  assert.ok(first.at);

  // Unchanged: nothing is sent (the report's time stays).
  const lines: string[] = [];
  const saved: DeviceState[] = [];
  const opts = {
    lookup,
    log: (line: string) => void lines.push(line),
    saveState: async (s: DeviceState) => void saved.push(structuredClone(s)),
  };
  assert.equal(await reportChangedFacts(state, opts), false);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal((await held(state.device)).at, first.at);
  assert.equal(saved.length, 0);

  // The machine was renamed since: the next upload reports first (the state file says what was last sent).
  await writeState(file, { ...state, facts: { ...here, hostname: 'the-old-name' } });
  const run = join(fx.dir, 'run.txt');
  await import('node:fs/promises').then((fs) => fs.writeFile(run, 'a run\n'));
  const upload = paddock(['device', 'upload', run, '--privacy', 'full', '--state', file, ...RESOLVE], {});
  assert.equal(await upload.exited, 0, upload.output().stderr);
  assert.match(upload.output().stderr, /reported this device's facts \(they changed\)/);
  const second = await held(state.device);
  assert.deepEqual(second.facts, here);
  assert.ok(Date.parse(second.at) >= Date.parse(first.at));
  assert.deepEqual((JSON.parse(await readFile(file, 'utf8')) as DeviceState).facts, here, 'kept in the state file');

  // A watch reports before it asks, when the facts changed.
  const watched = await readState(file);
  watched.facts = { os: 'plan9' };
  await new Promise((resolve) => setTimeout(resolve, 5));
  const end = await watch(watched, { ...opts, command: 'true', waitS: 0, once: true, contentType: 'text/plain' });
  assert.equal(end, 'done');
  const third = await held(state.device);
  assert.deepEqual(third.facts, here);
  assert.ok(Date.parse(third.at) > Date.parse(second.at), 'reported again');
  assert.deepEqual(saved.at(-1)?.facts, here, 'the watch keeps the new set in the state');

  // `paddock device facts` reports now, changed or not, and prints them.
  const facts = paddock(['device', 'facts', '--state', file, ...RESOLVE], {});
  assert.equal(await facts.exited, 0, facts.output().stderr);
  assert.deepEqual(
    facts.output().stdout.trim().split('\n'),
    Object.entries(here).map(([k, v]) => `${k}=${v}`),
  );

  // A revoked device's report is refused; the report says so in the log and never throws.
  assert.ok((await api('POST', `/devices/${state.device}/revoke`)).status < 300);
  const revoked = await readState(file);
  revoked.facts = { os: 'changed' };
  lines.length = 0;
  assert.equal(await reportChangedFacts(revoked, opts), false);
  assert.match(lines.join('\n'), /reporting this device's facts: facts refused \(401\)/);
  const refused = paddock(['device', 'facts', '--state', file, ...RESOLVE], {});
  assert.equal(await refused.exited, 1);
  assert.match(refused.output().stderr, /facts refused \(401\): unknown or revoked device credential/);
});
