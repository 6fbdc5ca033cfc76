// deploy/paddock.service (issue 16): systemd's own verifier accepts it without a warning, and it
// keeps the hardening the README promises (a dynamic user, its state directory, a read-only
// system, no new privileges, a filtered set of system calls, settings from a file).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const unitFile = new URL('../../deploy/paddock.service', import.meta.url).pathname;
const found = spawnSync('systemd-analyze', ['--version']).status === 0;

/** The unit, installed under a temporary prefix so that its commands exist (verify checks them). */
async function verify(text: string): Promise<{ status: number | null; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-unit-'));
  try {
    await symlink(process.execPath, join(dir, 'node'));
    const unit = join(dir, 'paddock.service');
    await writeFile(unit, text.replaceAll('/opt/paddock', dir));
    const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    return { status: r.status, stderr: r.stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  'systemd-analyze verify accepts the unit without a warning, and refuses a broken one',
  { skip: !found && !process.env.CI && 'systemd-analyze is not installed' },
  async () => {
    const text = await readFile(unitFile, 'utf8');
    assert.deepEqual(await verify(text), { status: 0, stderr: '' });
    // The check is real: a misspelt directive is reported.
    const broken = await verify(text.replace('NoNewPrivileges=yes', 'NoNewPriviledges=yes'));
    assert.match(broken.stderr, /Unknown key 'NoNewPriviledges'/);
    execFileSync('systemd-analyze', ['--version']);
  },
);

test('the unit runs as a dynamic user in its state directory, sandboxed, with settings from a file', async () => {
  const text = await readFile(unitFile, 'utf8');
  const service = text.slice(text.indexOf('[Service]'), text.indexOf('[Install]'));
  const values = (key: string) => [...service.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1] ?? '');
  for (const [key, value] of [
    ['DynamicUser', 'yes'],
    ['StateDirectory', 'paddock'],
    ['ProtectSystem', 'strict'],
    ['NoNewPrivileges', 'yes'],
    ['EnvironmentFile', '/etc/paddock/paddock.env'],
    ['KillSignal', 'SIGTERM'],
    ['CapabilityBoundingSet', ''],
  ] as const)
    assert.deepEqual(values(key), [value], key);
  assert.deepEqual(values('SystemCallFilter'), [
    '@system-service',
    '~@privileged @resources @mount @debug @cpu-emulation @obsolete',
  ]);
  assert.deepEqual(values('MemoryDenyWriteExecute'), [], 'V8 writes the code it runs: this must stay off');
  assert.match(values('ExecStart')[0] ?? '', /paddock\.js serve$/);
  // The example settings hold no secret.
  const example = await readFile(new URL('../../deploy/paddock.env.example', import.meta.url), 'utf8');
  for (const line of example.split('\n').filter((l) => /SECRET|TOKEN|PASSWORD|KEYS/.test(l.split('=')[0] ?? '')))
    assert.match(line, /^#?[A-Z_]+=$/, `no value for ${line}`);
});
