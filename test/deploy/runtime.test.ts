// The runtime settings Paddock is measured with (V8's heap flags and glibc malloc's settings,
// docs/decisions.md) are the ones every way of starting it uses: bin/paddock.js run as a
// command, `npm start`, the container's entrypoint, the systemd unit, and the benchmark's server
// and baselines. A setting changed in one place and not the others would ship what was not measured.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { SERVER_ENV, SERVER_FLAGS } from '../../bench/server.ts';

const root = new URL('../../', import.meta.url).pathname;
const read = (file: string) => readFile(join(root, file), 'utf8');

/** `NAME=value` settings and `--flags` of one command line, in order. */
function settings(words: string[]): { env: Record<string, string>; flags: string[] } {
  const env: Record<string, string> = {};
  for (const word of words.filter((w) => /^[A-Z_]+=/.test(w)))
    env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  return { env, flags: words.filter((w) => w.startsWith('--')) };
}

const expected = { env: { ...SERVER_ENV }, flags: [...SERVER_FLAGS] };

test('bin/paddock.js, npm start, the container and the systemd unit start Node with the benchmark’s settings', async () => {
  const shebang = (await read('bin/paddock.js')).split('\n')[0] ?? '';
  assert.match(shebang, /^#!\/usr\/bin\/env -S /);
  assert.ok(shebang.length < 256, 'Linux reads at most 256 bytes of a #! line');
  assert.deepEqual(settings(shebang.slice('#!/usr/bin/env -S '.length).split(' ')), expected, 'bin/paddock.js');

  const start = (JSON.parse(await read('package.json')) as { scripts: Record<string, string> }).scripts.start ?? '';
  assert.deepEqual(settings(start.split(' ')), expected, 'npm start');

  const containerfile = await read('Containerfile');
  const entrypoint = JSON.parse(/^ENTRYPOINT (.*)$/m.exec(containerfile)?.[1] ?? '[]') as string[];
  const containerEnv = [...containerfile.matchAll(/^ENV (.*)$/gm)].flatMap((m) => (m[1] ?? '').split(' '));
  const container = settings([...containerEnv, ...entrypoint]);
  assert.deepEqual(container.flags, expected.flags, 'the container’s entrypoint');
  for (const [name, value] of Object.entries(SERVER_ENV))
    assert.equal(container.env[name], value, `Containerfile ${name}`);

  const unit = await read('deploy/paddock.service');
  const unitEnv = [...unit.matchAll(/^Environment=(.*)$/gm)].flatMap((m) => (m[1] ?? '').split(' '));
  const service = settings([...unitEnv, ...(/^ExecStart=(.*)$/m.exec(unit)?.[1] ?? '').split(' ')]);
  assert.deepEqual(service.flags, expected.flags, 'the unit’s ExecStart');
  for (const [name, value] of Object.entries(SERVER_ENV)) assert.equal(service.env[name], value, `the unit’s ${name}`);
});

test('bin/paddock.js run as a command serves with those settings in effect', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-runtime-'));
  // The #! line finds `node` on PATH: this Node first, as npm puts its own.
  const child = spawn(join(root, 'bin', 'paddock.js'), ['serve'], {
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      PADDOCK_DATA_DIR: join(dir, 'data'),
      PADDOCK_LISTEN: '127.0.0.1:0',
      PADDOCK_SESSION_KEYS: Buffer.alloc(32, 7).toString('base64'),
      PADDOCK_ADMIN_PASSWORD: 'runtime settings test',
      PADDOCK_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('serving on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`paddock serve exited (${code}): ${stderr}`)));
    });
    const environ = (await readFile(`/proc/${child.pid}/environ`, 'utf8')).split('\0');
    for (const [name, value] of Object.entries(SERVER_ENV)) assert.ok(environ.includes(`${name}=${value}`), name);
    const argv = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0');
    assert.equal(argv[0], 'node');
    for (const flag of SERVER_FLAGS) assert.ok(argv.includes(flag), flag);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    await rm(dir, { recursive: true, force: true });
  }
});
