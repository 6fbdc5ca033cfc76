// Control key rollover end to end (docs/contract.md section 16), with real processes: `paddock
// serve` on a store made before the next key, `paddock device` enrolling with two-pin and one-pin
// links, `paddock rotate-control-key` run twice against the same store (the server told by SIGHUP
// to load it at once; the 20 s reload is test/server/control_key_reload.test.ts). A device that
// checks in between the rotations keeps uploading; one that missed both fails, told it needs a
// new enrollment link; links minted after carry the new pair.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect } from 'node:tls';
import { spkiPin } from '../../src/device_client/pinned_request.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { CONTROL_TLS_SETTING } from '../../src/tls/control_identity.ts';
import { certificatePin, generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';

const PASSWORD = 'key rollover password';
const dir = await mkdtemp(join(tmpdir(), 'paddock-rollover-'));
after(() => rm(dir, { recursive: true, force: true }));

/** The pin of the key the port presents to a TLS client now. */
async function servedPin(port: number): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  try {
    await once(socket, 'secureConnect');
    return spkiPin(socket);
  } finally {
    socket.destroy();
  }
}

async function waitForPin(port: number, pin: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await servedPin(port)) === pin) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the server did not serve ${pin} within 10 s`);
}

const pinsOf = (link: string) => new URL(link).searchParams.getAll('pin');
const stateOf = async (file: string) =>
  JSON.parse(await readFile(file, 'utf8')) as { pins: string[]; device: string; retiredPins?: { pins: string[] } };

test('a device enrolled with a two-pin link uploads across two rotations; one that missed both needs a new link', async () => {
  const port = await freePort();
  const env = {
    PADDOCK_LISTEN: `127.0.0.1:${port}`,
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_ADMIN_PASSWORD: PASSWORD,
  };
  // A store made before the next key: its control certificate, and no next key.
  const old = generateSelfSignedCertificate({
    commonName: '127.0.0.1',
    dnsNames: [],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(Date.now() - 60_000),
    days: 397,
  });
  const store = openSqliteStore(env.PADDOCK_DATA_DIR);
  await store.setSetting(CONTROL_TLS_SETTING, JSON.stringify(old));
  await store.close();
  const A = certificatePin(old.certPem);

  const server = paddock(['serve'], env);
  await server.waitFor(/serving on http:\/\/127\.0\.0\.1:/);
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
    redirect: 'manual',
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const page = await (await fetch(`${base}/enroll-tokens`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const mint = async () => {
    const res = await fetch(`${base}/enroll-tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }),
    });
    return (/(paddock:\/\/enroll\?[^<]+)</.exec(await res.text())?.[1] ?? '').replaceAll('&amp;', '&');
  };
  const device = async (args: string[]) => {
    const p = paddock(['device', ...args], {});
    return { code: await p.exited, stderr: p.output().stderr };
  };
  const upload = async (state: string, id: string) => {
    const run = join(dir, `${id}.txt`);
    await writeFile(run, `run ${id}\n`);
    return device(['upload', run, '--privacy', 'full', '--id', id, '--state', state]);
  };
  const rotate = async () => {
    const p = paddock(['rotate-control-key'], env);
    assert.equal(await p.exited, 0, p.output().stderr);
    server.child.kill('SIGHUP');
    return p.output().stderr;
  };

  // The old store got its next key at start; the certificate devices already pin is kept.
  assert.equal(await servedPin(port), A);
  const first = await mint();
  const [, B = ''] = pinsOf(first);
  assert.deepEqual(pinsOf(first), [A, B], 'the link carries both pins, current first');
  assert.match(B, /^sha256\/[A-Za-z0-9+/]{43}=$/);
  const pinsAnswer = await fetch(`${base}/v1/pins`);
  assert.deepEqual(await pinsAnswer.json(), { pins: [A, B] });
  assert.match(pinsAnswer.headers.get('paddock-pins') ?? '', /^[0-9a-f]{16}$/);

  const steady = join(dir, 'steady.json');
  const away = join(dir, 'away.json');
  const single = join(dir, 'single.json');
  assert.equal((await device(['enroll', first, '--state', steady])).code, 0);
  assert.deepEqual((await stateOf(steady)).pins, [A, B]);
  assert.equal((await device(['enroll', await mint(), '--state', away])).code, 0);
  // A link with one pin, as minted before this change: it enrolls, and the device learns the pair at once.
  const oneLink = (await mint()).replace(/&pin=[^&]+(&token=)/, '$1');
  assert.deepEqual(pinsOf(oneLink), [A]);
  const singleEnroll = await device(['enroll', oneLink, '--state', single]);
  assert.equal(singleEnroll.code, 0, singleEnroll.stderr);
  assert.deepEqual((await stateOf(single)).pins, [A, B]);
  assert.equal((await stateOf(single)).retiredPins, undefined);
  assert.equal((await upload(steady, 'before')).code, 0);

  // First rotation: B is served; a device holding A and B connects, and learns the new pair.
  assert.match(await rotate(), /control key rotated: every instance serves sha256\/\S+ within 60 s/);
  await waitForPin(port, B);
  const across = await upload(steady, 'between');
  assert.equal(across.code, 0, across.stderr);
  const learned = await stateOf(steady);
  const [, C = ''] = learned.pins;
  assert.equal(learned.pins[0], B);
  assert.ok(C !== A && C !== B, 'a new next key');
  assert.match(across.stderr, /the control key's pins are now sha256\//);
  assert.deepEqual(learned.retiredPins?.pins, [A, B], 'the replaced pair is kept for a grace period');
  const singleUpload = await upload(single, 'single-between');
  assert.equal(singleUpload.code, 0, singleUpload.stderr);

  // Second rotation: C is served; the device that checked in between keeps working without any step.
  await rotate();
  await waitForPin(port, C);
  const after2 = await upload(steady, 'after');
  assert.equal(after2.code, 0, after2.stderr);
  assert.equal((await stateOf(steady)).pins[0], C);

  // The device that missed both rotations holds A and B only: nothing is sent, and it is told why.
  const missed = await upload(away, 'missed');
  assert.equal(missed.code, 1);
  assert.match(
    missed.stderr,
    /^paddock device: pin mismatch: 127\.0\.0\.1:\d+ presented a certificate with pin sha256\/\S+, but this device holds only the pins sha256\/\S+ and sha256\/\S+: the control key has been replaced at least twice since this device last checked in, or this is not its server; this device needs a new enrollment link \(enroll again\); nothing was sent\n$/,
  );

  // Links minted now carry the device's current pair; the runs are all there; the trail has both rotations.
  assert.deepEqual(pinsOf(await mint()), (await stateOf(steady)).pins);
  const { device: id } = await stateOf(steady);
  for (const run of ['before', 'between', 'after'])
    assert.equal((await fetch(`${base}/runs/${id}/${run}`, { headers: { cookie } })).status, 200, run);
  const trail = (await (await fetch(`${base}/audit.jsonl`, { headers: { cookie } })).text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((r) => r.event === 'control_key.rotated');
  assert.equal(trail.length, 2);
  assert.equal(trail[0]?.account, 'system');

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, 'SIGHUP reloaded; it did not stop the server');
});

test('paddock rotate-control-key refuses a configured control certificate and a bad setting (exit 2)', async () => {
  const pair = generateSelfSignedCertificate({
    commonName: '127.0.0.1',
    dnsNames: [],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(),
    days: 30,
  });
  await writeFile(join(dir, 'control.crt'), pair.certPem);
  await writeFile(join(dir, 'control.key'), pair.keyPem);
  const configured = paddock(['rotate-control-key'], {
    PADDOCK_DATA_DIR: join(dir, 'configured'),
    PADDOCK_CONTROL_TLS_CERT: join(dir, 'control.crt'),
    PADDOCK_CONTROL_TLS_KEY: join(dir, 'control.key'),
  });
  assert.equal(await configured.exited, 2);
  assert.match(
    configured.output().stderr,
    /^paddock: PADDOCK_CONTROL_TLS_CERT is set: .*rotate-control-key replaces the key generated and kept in the store\n$/,
  );
  const bad = paddock(['rotate-control-key'], { PADDOCK_DATABASE_URL: 'postgres://127.0.0.1:1/none' });
  assert.equal(await bad.exited, 2);
  assert.match(bad.output().stderr, /^paddock: PADDOCK_DATABASE_URL: cannot use the database/);
  const help = paddock(['rotate-control-key', '--help'], {});
  assert.equal(await help.exited, 0);
  assert.match(help.output().stdout, /^Usage: paddock rotate-control-key \[--compromised\]\n/);
});
