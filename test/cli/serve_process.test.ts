// Starts the real `paddock serve` process, reads the printed password, signs in, enrolls a
// device and uploads a run over HTTP, then stops it with SIGTERM and expects exit status 0.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { certificatePin, generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';
import { paddock } from '../support/process.ts';

test('paddock serve: first start prints a password once; sign in, mint, enroll, upload, view; SIGTERM exits 0', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-serve-'));
  try {
    const dataDir = join(dir, 'data');
    const env = { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: dataDir };
    // With port 0 the base URL is only known once listening; pin it so the link is predictable.
    const p = paddock(['serve'], { ...env, PADDOCK_BASE_URL: 'http://127.0.0.1:8080' });
    const password = (await p.waitFor(/generated break-glass password for "admin" \(shown once\): (\S+)/))[1] ?? '';
    const base = (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    assert.equal(((await stat(dataDir)).mode & 0o777).toString(8), '700');

    assert.deepEqual(await (await fetch(`${base}/healthz`)).json(), { ok: true, version: '0.1.0' });
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password }),
      redirect: 'manual',
    });
    assert.equal(login.status, 303);
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const devices = await (await fetch(`${base}/devices`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(devices)?.[1] ?? '';
    const mint = await fetch(`${base}/enroll-tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, owner: '' }),
    });
    assert.equal(mint.status, 200);
    const link = /(paddock:\/\/enroll\?[^<]+)</.exec(await mint.text())?.[1]?.replaceAll('&amp;', '&') ?? '';
    const params = new URL(link).searchParams;
    assert.equal(params.get('server'), '127.0.0.1:8080');
    assert.match(params.get('pin') ?? '', /^sha256\/[A-Za-z0-9+/]{43}=$/);

    const enrolled = await fetch(`${base}/v1/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: params.get('token'), name: 'lab-1' }),
    });
    assert.equal(enrolled.status, 201);
    const { device, credential } = (await enrolled.json()) as { device: string; credential: string };
    const put = await fetch(`${base}/v1/runs/run-1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'redacted', 'content-type': 'text/plain' },
      body: 'temp=21 <ok>',
    });
    assert.equal(put.status, 201);
    const view = await (await fetch(`${base}/runs/${device}/run-1`, { headers: { cookie } })).text();
    assert.match(view, /<pre>\n<a id="L1" href="#L1">1<\/a> {2}temp=21 &lt;ok&gt;<\/pre>/);

    const logs = p
      .output()
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(
      logs.some(
        (r) =>
          r.event === 'login.local.succeeded' &&
          r.client === '127.0.0.1' &&
          typeof r.time === 'string' &&
          r.level === 'info',
      ),
    );
    assert.ok(!p.output().stdout.includes(password), 'the password is not in the log');
    assert.ok(!p.output().stdout.includes(credential), 'the credential is not in the log');

    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);

    // A second start keeps the stored password (no new one printed) and the same pin.
    const again = paddock(['serve'], { ...env, PADDOCK_BASE_URL: 'http://127.0.0.1:8080' });
    await again.waitFor(/serving on/);
    assert.doesNotMatch(again.output().stderr, /generated break-glass password/);
    again.child.kill('SIGINT');
    assert.equal(await again.exited, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('paddock serve: a bad setting, or a data directory, database or address it cannot use, exits 2 with one line naming the variable', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const dataDir = await mkdtemp(join(tmpdir(), 'paddock-bad-'));
  try {
    const cases: Array<[string, Record<string, string>]> = [
      ['PADDOCK_LISTEN', { PADDOCK_LISTEN: 'nowhere' }],
      ['PADDOCK_LISTEN', { PADDOCK_LISTEN: `127.0.0.1:${(taken.address() as AddressInfo).port}` }],
      ['PADDOCK_DATA_DIR', { PADDOCK_DATA_DIR: '/dev/null/paddock' }],
      ['PADDOCK_DATABASE_URL', { PADDOCK_DATABASE_URL: 'postgres://paddock:secret-word@127.0.0.1:1/none' }],
      ['PADDOCK_SECURE', { PADDOCK_SECURE: 'false', PADDOCK_BASE_URL: 'https://paddock.example' }],
      ['PADDOCK_RETENTION_FULL', { PADDOCK_RETENTION_FULL: '30 days' }],
      ['PADDOCK_RETENTION_REDACTED', { PADDOCK_RETENTION_REDACTED: '0d' }],
      ['PADDOCK_RETENTION_MINIMAL', { PADDOCK_RETENTION_MINIMAL: '-1h' }],
      ['PADDOCK_SWEEP_INTERVAL', { PADDOCK_SWEEP_INTERVAL: '10' }],
      ['PADDOCK_PROXY_PROTOCOL_FROM', { PADDOCK_PROXY_PROTOCOL_FROM: '10.0.0.0/8, balancer' }],
    ];
    for (const [variable, env] of cases) {
      const p = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: dataDir, ...env });
      assert.equal(await p.exited, 2, JSON.stringify(env));
      const lines = p.output().stderr.trim().split('\n');
      assert.equal(lines.length, 1, p.output().stderr);
      assert.match(lines[0] ?? '', new RegExp(`^paddock: ${variable}: `));
      assert.doesNotMatch(lines[0] ?? '', /secret-word/);
    }
  } finally {
    taken.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('paddock serve on port 0 without PADDOCK_BASE_URL: BaseURL and ControlURL name the port bound', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-port0-'));
  try {
    const p = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: join(dir, 'data') });
    const [, url = '', console = ''] = await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+) \(console at (\S+)\)/);
    assert.doesNotMatch(url, /:0$/);
    assert.equal(console, `${url}/`);
    assert.deepEqual(await (await fetch(`${url}/v1/discover`)).json(), { control_url: url, name: 'paddock' });
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('paddock set-admin-password: reads stdin, refuses short passwords, and the new one signs in; a configured control certificate gives the pin', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-pw-'));
  try {
    const control = generateSelfSignedCertificate({
      commonName: 'control.example',
      dnsNames: ['control.example'],
      notBefore: new Date(),
      days: 30,
    });
    await writeFile(join(dir, 'control.crt'), control.certPem);
    await writeFile(join(dir, 'control.key'), control.keyPem);
    const env = {
      PADDOCK_DATA_DIR: join(dir, 'data'),
      PADDOCK_CONTROL_TLS_CERT: join(dir, 'control.crt'),
      PADDOCK_CONTROL_TLS_KEY: join(dir, 'control.key'),
    };
    const short = paddock(['set-admin-password'], env, 'short\n');
    assert.equal(await short.exited, 2);
    const set = paddock(['set-admin-password'], env, 'a much longer password\n');
    assert.equal(await set.exited, 0, set.output().stderr);
    const p = paddock(['serve'], { ...env, PADDOCK_LISTEN: '127.0.0.1:0' });
    const base = (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    assert.doesNotMatch(p.output().stderr, /generated/);
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=admin&password=a+much+longer+password',
      redirect: 'manual',
    });
    assert.equal(login.status, 303);
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const csrf =
      /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${base}/devices`, { headers: { cookie } })).text())?.[1] ??
      '';
    const mint = await fetch(`${base}/enroll-tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }),
    });
    const link = /(paddock:\/\/enroll\?[^<]+)</.exec(await mint.text())?.[1]?.replaceAll('&amp;', '&') ?? '';
    assert.equal(new URL(link).searchParams.get('pin'), certificatePin(control.certPem));
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('paddock --help and an unknown verb', async () => {
  const help = paddock(['--help'], {});
  assert.equal(await help.exited, 0);
  assert.match(help.output().stdout, /serve[\s\S]*set-admin-password[\s\S]*PADDOCK_LISTEN/);
  const verbHelp = paddock(['serve', '--help'], {});
  assert.equal(await verbHelp.exited, 0);
  const unknown = paddock(['launch'], {});
  assert.equal(await unknown.exited, 2);
});
