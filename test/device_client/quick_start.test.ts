// The README's first section, as a new user follows it (issue 23): `paddock serve` with no TLS
// setting serves the console over plain HTTP; the admin signs in with the generated password and
// mints a link; the reference client enrolls with that link as it is, pinned, and uploads.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { once } from 'node:events';
import { test } from 'node:test';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';

test('npm start, mint on the console, paddock device enroll and upload: the quick start works', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-quick-start-'));
  const port = await freePort();
  // The listen address only moves the port off 8080, which other suites may hold; no TLS setting.
  const server = paddock(['serve'], { PADDOCK_LISTEN: `127.0.0.1:${port}`, PADDOCK_DATA_DIR: join(dir, 'data') });
  const [, password = ''] = await server.waitFor(/generated break-glass password for "admin" \(shown once\): (\S+)/);
  await server.waitFor(/serving on http:\/\/127\.0\.0\.1:/);
  const console = `http://127.0.0.1:${port}`;

  const login = await fetch(`${console}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password }),
    redirect: 'manual',
  });
  assert.equal(login.status, 303);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const form = await (await fetch(`${console}/enroll-tokens`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(form)?.[1] ?? '';
  const mint = await fetch(`${console}/enroll-tokens`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf }),
  });
  assert.equal(mint.status, 200);
  const link = (/(paddock:\/\/enroll\?[^<]+)</.exec(await mint.text())?.[1] ?? '').replaceAll('&amp;', '&');
  assert.match(link, new RegExp(`^paddock://enroll\\?server=127\\.0\\.0\\.1:${port}&pin=sha256/`));

  const state = join(dir, 'device.json');
  const enroll = paddock(['device', 'enroll', link, '--state', state, '--name', 'bench-1'], {});
  assert.equal(await enroll.exited, 0, enroll.output().stderr);
  // The lines the README shows.
  assert.match(enroll.output().stderr, new RegExp(`discovery unavailable: connecting to 127\\.0\\.0\\.1:${port}\n`));
  assert.match(enroll.output().stderr, new RegExp(`enrolled as d_[\\w-]+ at https://127\\.0\\.0\\.1:${port};`));
  const { device } = JSON.parse(await readFile(state, 'utf8')) as { device: string };

  const run = join(dir, 'run.txt');
  await writeFile(run, 'pressure=1.2 operator=alice\n');
  const upload = paddock(['device', 'upload', run, '--privacy', 'redacted', '--id', 'first', '--state', state], {});
  assert.equal(await upload.exited, 0, upload.output().stderr);
  assert.equal(upload.output().stderr, 'paddock device: run first stored\n');
  const view = await fetch(`${console}/runs/${device}/first`, { headers: { cookie } });
  assert.equal(view.status, 200);
  assert.match(await view.text(), /pressure=1\.2 operator=\[redacted\]/);

  // The audit trail says where the device enrolled from, through the plain port's TLS too.
  const trail = (await (await fetch(`${console}/audit.jsonl`, { headers: { cookie } })).text()).trim().split('\n');
  const enrolled = trail
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((r) => r.event === 'device.enrolled');
  assert.equal(enrolled?.client, '127.0.0.1');
  assert.equal(enrolled?.device, device);

  // The pin is still checked: a link whose pin is another key's sends nothing and fails.
  const otherPin = `sha256/${Buffer.alloc(32, 7).toString('base64')}`;
  const forged = link.replace(/pin=[^&]+/, `pin=${otherPin}`).replace(/token=[^&]+/, 'token=unused');
  const refused = paddock(['device', 'enroll', forged, '--state', join(dir, 'other.json')], {});
  assert.equal(await refused.exited, 1);
  assert.match(refused.output().stderr, /pin mismatch/);

  // The port speaks TLS with the control certificate (no other), and plain HTTP to the browser.
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  await once(socket, 'secureConnect');
  assert.equal(socket.getPeerX509Certificate()?.subjectAltName, 'IP Address:127.0.0.1');
  socket.destroy();
  assert.equal((await fetch(`${console}/healthz`)).status, 200);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
