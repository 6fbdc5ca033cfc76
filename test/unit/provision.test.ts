// The test set-up (test/support/provision.ts): which needs are missing is read from PATH, each
// package is installed once, a machine that cannot install says what is missing and why, and CI
// runs exactly the README's commands, whose `npm test` provisions first. The installing itself
// (apt-get, the PostgreSQL cluster) is what CI exercises on a fresh machine. The runner after it
// (test/support/run_all.ts) takes every test file, the slowest first.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, glob, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cannotInstall, found, missing, missingReport, NEEDS, packages, searchPath } from '../support/provision.ts';
import { orderedFiles, SLOWEST } from '../support/run_all.ts';

async function binDir(executables: string[], plain: string[] = []): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-provision-'));
  for (const name of executables) {
    await writeFile(join(dir, name), '#!/bin/sh\nexit 0\n');
    await chmod(join(dir, name), 0o755);
  }
  for (const name of plain) await writeFile(join(dir, name), '');
  return dir;
}

test('a command counts as found only as an executable file on the search path', async () => {
  const dir = await binDir(['podman'], ['chromium']);
  try {
    assert.equal(found('podman', [dir]), true);
    assert.equal(found('chromium', [dir]), false, 'not executable');
    assert.equal(found('debootstrap', [dir]), false, 'absent');
    const commands = NEEDS.filter((n) => n.file === undefined);
    const absent = missing(commands, [dir]).map((n) => n.command);
    assert.deepEqual(
      absent,
      commands.map((n) => n.command).filter((c) => c !== 'podman'),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a need that is not a command (a plugin) counts as found when its file exists, whatever the path', async () => {
  const dir = await binDir([]);
  try {
    const plugin = { command: 'plugin.so', file: join(dir, 'plugin.so'), package: 'p', for: 'x' };
    assert.deepEqual(missing([plugin], []), [plugin]);
    await writeFile(plugin.file, '');
    assert.deepEqual(missing([plugin], []), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the search path adds the sbin folders a non-login root shell may lack, once', () => {
  assert.deepEqual(searchPath({ PATH: '/usr/bin:/usr/sbin' }), ['/usr/bin', '/usr/sbin', '/usr/local/sbin', '/sbin']);
});

test('each package is installed once, in table order, whatever number of its commands is missing', () => {
  assert.deepEqual(packages(NEEDS), [
    'postgresql',
    'chromium',
    'podman',
    'buildah',
    'debootstrap',
    'systemd',
    'prometheus',
    'rsyslog',
    'rsyslog-gnutls',
    'openssl',
    'haproxy',
    'busybox',
    'dash',
    'curl',
  ]);
  assert.equal(new Set(NEEDS.map((n) => n.command)).size, NEEDS.length, 'one row per command');
});

test('installing needs root and apt-get; without them the report says which packages, for what, and why', async () => {
  const apt = await binDir(['apt-get']);
  try {
    assert.equal(cannotInstall(0, [apt]), undefined);
    assert.equal(cannotInstall(1000, [apt]), 'installing packages needs root');
    assert.equal(cannotInstall(0, ['/nonexistent']), 'there is no apt-get here (not a Debian-like machine)');
  } finally {
    await rm(apt, { recursive: true, force: true });
  }
  const rows = NEEDS.filter((n) => ['pg_ctlcluster', 'psql', 'chromium'].includes(n.command));
  assert.equal(
    missingReport(rows, 'installing packages needs root'),
    'provision: missing, and not installed because installing packages needs root:\n' +
      '  postgresql (pg_ctlcluster, psql): the PostgreSQL store and several instances (test/store, test/multi); the PostgreSQL set-up here\n' +
      '  chromium (chromium): the browser suite (test/e2e)\n' +
      'provision: install them with: apt-get install -y postgresql chromium\n' +
      'provision: the suites that need them are skipped, or fail with CI=true\n',
  );
});

test('the script, on a machine where chromium is missing and apt-get is not found, reports it and exits 0', async () => {
  // Every other need is present (as files that are never run: nothing is run once one is missing).
  const dir = await binDir(NEEDS.map((n) => n.command).filter((c) => c !== 'chromium'));
  try {
    const script = new URL('../support/provision.ts', import.meta.url).pathname;
    const r = spawnSync(process.execPath, [script], { env: { PATH: dir }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    // The needs found as files (an rsyslog module) are looked for where Debian puts them, whatever
    // PATH says: those this machine lacks are reported too, after chromium, as the table orders them.
    const absent = NEEDS.filter((n) => n.command === 'chromium' || (n.file !== undefined && !existsSync(n.file)));
    assert.equal(absent[0]?.command, 'chromium');
    assert.equal(r.stderr, missingReport(absent, 'there is no apt-get here (not a Debian-like machine)'));
    assert.match(
      r.stderr,
      /^provision: missing, and not installed because there is no apt-get here \(not a Debian-like machine\):\n {2}chromium \(chromium\): the browser suite \(test\/e2e\)\n/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("CI runs the README's commands and nothing else, and npm test provisions before the suites", async () => {
  const root = new URL('../../', import.meta.url);
  const readme = await readFile(new URL('README.md', root), 'utf8');
  const ci = await readFile(new URL('.ci/run', root), 'utf8');
  const commands = ci.split('\n').filter((l) => l.trim() && !l.startsWith('#') && !/^(set|cd|export) /.test(l));
  assert.deepEqual(commands, ['npm ci && npm run check && npm test']);
  assert.ok(/\n {4}npm ci && npm run check && npm test +# /.test(readme), 'the README shows the same line');
  const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as { scripts: { test: string } };
  assert.equal(pkg.scripts.test, 'node test/support/provision.ts && node test/support/run_all.ts');
});

test('the runner takes every test file once, the slowest measured first, and its list names only files that exist', async () => {
  const all = await orderedFiles();
  const found: string[] = [];
  for await (const file of glob('test/**/*.test.ts')) found.push(file);
  assert.deepEqual([...all].sort(), found.sort(), 'every file, once');
  const known = all.filter((f) => SLOWEST[f] !== undefined);
  assert.deepEqual(known, all.slice(0, known.length), 'the measured files come first');
  assert.deepEqual(
    known.map((f) => SLOWEST[f]),
    known.map((f) => SLOWEST[f]).sort((a = 0, b = 0) => b - a),
    'slowest first',
  );
  assert.deepEqual(
    Object.keys(SLOWEST).filter((f) => !found.includes(f)),
    [],
    'no file in the list is gone',
  );
  assert.deepEqual(
    await orderedFiles(['test/e2e/']),
    all.filter((f) => f.startsWith('test/e2e/')),
  );
});
