// The reference client holds on to the next pin (docs/contract.md section 23), end to end: `paddock
// device` against a real server over TLS (its control certificate configured, so its set is one
// pin, S). A device holding [S, other] is offered a set that drops its next pin: refused in one
// line, the run goes on. One holding [other, S] is offered its next pin as current: kept. And the
// state file's directory must be this user's alone, checked before an enrollment spends its token.
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { DeviceState } from '../../src/device_client/state.ts';
import { paddock } from '../support/process.ts';
import { startTlsServer, type TlsServer } from '../support/tls_server.ts';

const RESOLVE = ['--resolve', 'admin.test:127.0.0.1', '--resolve', 'control.test:127.0.0.1'];
const other = `sha256/${Buffer.alloc(32, 7).toString('base64')}`;

let tls: TlsServer;
before(async () => {
  tls = await startTlsServer('next pin');
});
after(() => tls?.server.close());

async function device(args: string[], input?: string) {
  const p = paddock(['device', ...args, ...RESOLVE], {}, input);
  return { code: await p.exited, stderr: p.output().stderr };
}

const read = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as DeviceState;

async function enrolled(name: string): Promise<string> {
  const dir = join(tls.fx.dir, name);
  await mkdir(dir, { mode: 0o700 });
  const file = join(dir, 'device.json');
  const minted = await tls.api('POST', '/enroll-tokens', {});
  const enroll = await device(
    ['enroll', '-', '--state', file, '--ca', tls.fx.admin.certFile],
    `${minted.body?.link}\n`,
  );
  assert.equal(enroll.code, 0, enroll.stderr);
  return file;
}

test('a set that drops the next pin held is refused in one line and the run goes on; one that makes it current is kept', async () => {
  const file = await enrolled('holds-next');
  const state = await read(file);
  const [served = ''] = state.pins;

  await writeFile(file, JSON.stringify({ ...state, pins: [served, other] }));
  const refused = await device(['facts', '--state', file]);
  assert.equal(refused.code, 0, refused.stderr);
  assert.equal(
    refused.stderr,
    `paddock device: updating the control key's pins: the set drops the next pin held, ${other}, without making it current; the pins held are kept\npaddock device: reported 5 facts\n`,
  );
  assert.deepEqual((await read(file)).pins, [served, other]);
  assert.equal((await read(file)).retiredPins, undefined);

  await writeFile(file, JSON.stringify({ ...state, pins: [other, served] }));
  const rotated = await device(['facts', '--state', file]);
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.equal(
    rotated.stderr,
    `paddock device: the control key's pins are now ${served}\npaddock device: reported 5 facts\n`,
  );
  assert.deepEqual((await read(file)).pins, [served]);
  assert.deepEqual((await read(file)).retiredPins?.pins, [other, served]);
});

test('a state file in a directory others may write is refused (exit 1); enrollment checks before it spends the token', async () => {
  const file = await enrolled('shared-dir');
  const dir = join(tls.fx.dir, 'shared-dir');
  await chmod(dir, 0o777);
  const refused = await device(['facts', '--state', file]);
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr,
    `paddock device: device state ${file}: its directory ${dir} may be written by its group or others (mode 0777); chmod go-w ${dir}, or use a directory of your own (another user could replace the state)\n`,
  );

  const open = join(tls.fx.dir, 'open-enroll');
  await mkdir(open);
  await chmod(open, 0o770);
  const link = `${(await tls.api('POST', '/enroll-tokens', {})).body?.link}\n`;
  const args = ['enroll', '-', '--state', join(open, 'device.json'), '--ca', tls.fx.admin.certFile];
  const before = await device(args, link);
  assert.equal(before.code, 1);
  assert.match(before.stderr, /its directory .* may be written by its group or others \(mode 0770\)/);
  await chmod(open, 0o700);
  const again = await device(args, link);
  assert.equal(again.code, 0, again.stderr);
});
