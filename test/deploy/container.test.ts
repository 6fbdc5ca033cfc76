// The container image (issue 16), built from the Containerfile with podman on a Debian base made
// here by debootstrap (no registry is reachable), then started the way its configuration says:
// `podman run` is refused by this sandbox, so the image is mounted (read-only, as a container's
// root would be), a data directory is bound on its volume, and its entrypoint is run in a chroot as
// its own user. Checked: /healthz, its HEALTHCHECK command, a sign-in, an enrollment and an upload,
// SIGTERM; and the image's configuration (user, signal, volume, no secret, no dev dependency).
// Timings are printed as diagnostics (bench/results.md records them).
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../support/tls_fixture.ts';

const root = new URL('../..', import.meta.url).pathname;
const BASE = 'localhost/paddock-base:bookworm-minbase';
const IMAGE = 'localhost/paddock:test';
/** The debootstrap tree is kept between runs: it is the slow part, and it changes only with Debian. */
const BASE_CACHE = '/var/tmp/paddock-container-base/bookworm-minbase.tar';
const UID = 10001;
const PASSWORD = 'the container smoke password';

const tools = ['podman', 'debootstrap', 'chroot', 'mount'].filter(
  (t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0,
);
// Off CI the test is skipped without root or the tools; on CI (CI=true) it runs and fails instead.
const isRoot = process.getuid?.() === 0;
const skip = process.env.CI
  ? false
  : !isRoot
    ? 'needs root (chroot and mount)'
    : tools.length > 0
      ? `missing ${tools.join(', ')}`
      : false;

const run = (cmd: string, args: string[], input?: Buffer) =>
  execFileSync(cmd, args, { input, maxBuffer: 64 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] })
    .toString()
    .trim();

async function timed<T>(what: string, times: Record<string, number>, work: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  times[what] = Math.round(performance.now() - started);
  return result;
}

/** The base image: a debootstrap minbase of bookworm, imported once and then reused. */
async function baseImage(times: Record<string, number>): Promise<void> {
  if (spawnSync('podman', ['image', 'exists', BASE]).status === 0) return;
  if (!existsSync(BASE_CACHE)) {
    const work = await mkdtemp(join(tmpdir(), 'paddock-debootstrap-'));
    try {
      await timed('debootstrap', times, () =>
        run('debootstrap', ['--variant=minbase', 'bookworm', join(work, 'rootfs'), 'http://deb.debian.org/debian']),
      );
      // The downloaded packages are not part of the base.
      await rm(join(work, 'rootfs', 'var', 'cache', 'apt', 'archives'), { recursive: true, force: true });
      await mkdir(join(BASE_CACHE, '..'), { recursive: true });
      run('tar', ['-C', join(work, 'rootfs'), '-cf', `${BASE_CACHE}.partial`, '.']);
      run('mv', [`${BASE_CACHE}.partial`, BASE_CACHE]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  await timed('import', times, () => run('podman', ['import', BASE_CACHE, BASE]));
}

test('the container image builds, runs as its own user on a read-only root, and serves', { skip }, async (t) => {
  assert.ok(isRoot, 'runs as root (chroot and mount)');
  assert.deepEqual(tools, [], 'podman, debootstrap, chroot and mount are installed (.ci/run installs them)');
  const times: Record<string, number> = {};
  await baseImage(times);
  // A TLS-inspecting proxy's CA (this machine's) reaches npm as a build secret, never a layer.
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  await timed('build', times, () =>
    run('podman', [
      'build',
      '--isolation=chroot',
      '--format=docker',
      `--build-arg=BASE=${BASE}`,
      ...(ca && existsSync(ca) ? [`--secret=id=ca,src=${ca}`] : []),
      `--tag=${IMAGE}`,
      '--file=Containerfile',
      root,
    ]),
  );

  const [inspected] = JSON.parse(run('podman', ['image', 'inspect', IMAGE])) as Array<{
    Size: number;
    Config: {
      User: string;
      Env: string[];
      Entrypoint: string[];
      Cmd: string[];
      StopSignal: string;
      Volumes: Record<string, object>;
    };
    Healthcheck?: { Test: string[] };
  }>;
  assert.ok(inspected);
  const config = inspected.Config;
  assert.equal(config.User, `${UID}:${UID}`, 'not root');
  assert.equal(config.StopSignal, 'SIGTERM');
  assert.deepEqual(Object.keys(config.Volumes), ['/data']);
  assert.deepEqual(inspected.Healthcheck?.Test, ['CMD', '/opt/paddock/node', '/opt/paddock/bin/healthcheck.js']);
  const paddockEnv = config.Env.filter((e) => e.startsWith('PADDOCK_'));
  assert.deepEqual(paddockEnv, ['PADDOCK_DATA_DIR=/data'], 'no setting, let alone a secret, is baked in');

  const mounted = run('podman', ['image', 'mount', IMAGE]);
  const data = await mkdtemp(join(tmpdir(), 'paddock-container-data-'));
  let server: ChildProcess | undefined;
  try {
    // Production dependencies only.
    const modules = await readdir(join(mounted, 'opt', 'paddock', 'node_modules'));
    for (const dev of ['typescript', 'eslint', 'playwright-core', 'ajv', 'prettier', 'node'])
      assert.ok(!modules.includes(dev), `${dev} is not in the image`);
    for (const dependency of ['hono', 'jose', 'pg', 'prom-client']) assert.ok(modules.includes(dependency));
    await assert.rejects(writeFile(join(mounted, 'written'), 'x'), /EROFS/, 'the root file system is read-only');

    await chown(data, UID, UID);
    run('mount', ['--bind', data, join(mounted, 'data')]);
    const port = await freePort();
    const env = {
      ...Object.fromEntries(config.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])),
      PADDOCK_LISTEN: `127.0.0.1:${port}`,
      PADDOCK_ADMIN_PASSWORD: PASSWORD,
    };
    const chrooted = (command: string[]) =>
      spawn('chroot', [`--userspec=${config.User}`, mounted, ...command], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const started = performance.now();
    server = chrooted([...config.Entrypoint, ...config.Cmd]);
    let output = '';
    server.stdout?.on('data', (d: Buffer) => (output += d));
    server.stderr?.on('data', (d: Buffer) => (output += d));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      assert.ok(i < 300 && server.exitCode === null, `the server answers /healthz: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    times['start to /healthz 200'] = Math.round(performance.now() - started);

    const check = chrooted(inspected.Healthcheck?.Test.slice(1) ?? []);
    assert.equal((await once(check, 'exit'))[0], 0, 'the HEALTHCHECK command passes');

    // A sign-in with the break-glass password, then the dashboard.
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
      redirect: 'manual',
    });
    assert.equal(login.status, 303);
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const page = await fetch(`${base}/devices`, { headers: { cookie } });
    assert.equal(page.status, 200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';

    // An enrollment link, an enrollment and an upload.
    const minted = await fetch(`${base}/enroll-tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }),
    });
    const token = /token=([A-Za-z0-9_-]{43})/.exec(await minted.text())?.[1];
    assert.ok(token, 'a link was minted');
    const enrolled = await fetch(`${base}/v1/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: 'in a container' }),
    });
    assert.equal(enrolled.status, 201);
    const { credential } = (await enrolled.json()) as { credential: string };
    const uploaded = await fetch(`${base}/v1/runs/first`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
      body: 'a run stored in the volume',
    });
    assert.equal(uploaded.status, 201);
    assert.ok((await readdir(data)).includes('paddock.db'), 'the store is in the volume');

    server.kill('SIGTERM');
    const [code] = (await once(server, 'exit')) as [number | null];
    assert.equal(code, 0, output);
    server = undefined;
  } finally {
    server?.kill('SIGKILL');
    if (server) await once(server, 'exit');
    spawnSync('umount', [join(mounted, 'data')]);
    spawnSync('podman', ['image', 'unmount', IMAGE]);
    await rm(data, { recursive: true, force: true });
  }
  times['image size MB'] = Math.round(inspected.Size / 1e6);
  t.diagnostic(`container: ${JSON.stringify(times)}`);
});
