// The whole loop over TLS on one port, with the real commands: an admin mints a link in the
// console; `paddock device enroll` uses it through discovery and the pin; `paddock device upload`
// sends a redacted run; the console shows it exactly as uploaded; after revoke the upload is refused.
import assert from 'node:assert/strict';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { paddock } from '../support/process.ts';
import { freePort, httpsRequest, tlsFixture } from '../support/tls_fixture.ts';

test('paddock serve over TLS + paddock device enroll/upload: the README loop', async () => {
  const fx = await tlsFixture();
  const port = await freePort();
  const admin = `https://admin.test:${port}`;
  const server = paddock(['serve'], {
    PADDOCK_LISTEN: `127.0.0.1:${port}`,
    PADDOCK_DATA_DIR: join(fx.dir, 'data'),
    PADDOCK_BASE_URL: admin,
    PADDOCK_CONTROL_HOST: 'control.test',
    PADDOCK_TLS_CERT: fx.admin.certFile,
    PADDOCK_TLS_KEY: fx.admin.keyFile,
    PADDOCK_ADMIN_PASSWORD: 'the loop password',
  });
  await server.waitFor(/serving on https:/);
  const ca = fx.admin.certPem;
  const login = await httpsRequest(`${admin}/login`, {
    ca,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=admin&password=the+loop+password',
  });
  const cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  const csrf =
    /name="csrf" value="([^"]+)"/.exec(
      (await httpsRequest(`${admin}/devices`, { ca, headers: { cookie } })).body,
    )?.[1] ?? '';
  const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
  const mint = await httpsRequest(`${admin}/enroll-tokens`, {
    ca,
    method: 'POST',
    headers: form,
    body: `csrf=${csrf}`,
  });
  const link = (/(paddock:\/\/enroll\?[^<]+)</.exec(mint.body)?.[1] ?? '').replaceAll('&amp;', '&');

  const state = join(fx.dir, 'device.json');
  const resolve = ['--resolve', 'admin.test:127.0.0.1', '--resolve', 'control.test:127.0.0.1'];
  // The link on standard input (`-`), so the process list never shows it.
  const enroll = paddock(
    ['device', 'enroll', '-', '--state', state, '--name', 'lab-1', '--ca', fx.admin.certFile, ...resolve],
    {},
    `${link}\n`,
  );
  assert.equal(await enroll.exited, 0, enroll.output().stderr);
  assert.match(enroll.output().stderr, new RegExp(`discovery: connecting to https://control\\.test:${port}`));
  assert.equal(((await stat(state)).mode & 0o777).toString(8), '600');
  const { device, credential } = JSON.parse(
    await import('node:fs/promises').then((fs) => fs.readFile(state, 'utf8')),
  ) as { device: string; credential: string };

  const runFile = join(fx.dir, 'run.txt');
  await writeFile(runFile, 'pressure=1.2 operator=alice from 10.1.2.3\n');
  const upload = paddock(
    ['device', 'upload', runFile, '--privacy', 'redacted', '--id', 'loop-1', '--state', state, ...resolve],
    {},
  );
  assert.equal(await upload.exited, 0, upload.output().stderr);
  const view = await httpsRequest(`${admin}/runs/${device}/loop-1`, { ca, headers: { cookie } });
  assert.match(
    view.body,
    /<pre>\n<a id="L1" href="#L1">1<\/a> {2}pressure=1\.2 operator=\[redacted\] from \[redacted\]\n<\/pre>/,
  );
  assert.match(view.body, /redacted: the device removed/);
  assert.doesNotMatch(view.body, /alice|10\.1\.2\.3/);

  const revoke = await httpsRequest(`${admin}/devices/${device}/revoke`, {
    ca,
    method: 'POST',
    headers: form,
    body: `csrf=${csrf}`,
  });
  assert.equal(revoke.status, 303);
  const refused = paddock(['device', 'upload', runFile, '--privacy', 'full', '--state', state, ...resolve], {});
  assert.equal(await refused.exited, 1);
  assert.match(refused.output().stderr, /credential is unknown or revoked/);
  assert.ok(!server.output().stdout.includes(credential), 'the credential is in no log record');

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});

test('plain HTTP on a non-loopback address is refused at start', async () => {
  const p = paddock(['serve'], { PADDOCK_LISTEN: '0.0.0.0:0', PADDOCK_DATA_DIR: '/nonexistent/never' });
  assert.equal(await p.exited, 2);
  assert.match(p.output().stderr, /^paddock: PADDOCK_LISTEN: plain HTTP is served only on a loopback address/);
});
