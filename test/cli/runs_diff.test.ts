// `paddock runs diff DEVICE/ID DEVICE/ID` (docs/contract.md section 21) against a real `paddock serve`:
// the API's unified diff on stdout exactly, exit 0 whether or not the runs differ, and the server's
// 404 as the CLI's usual failure (exit 1, its words on stderr).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminServer } from '../support/admin_server.ts';
import { paddock } from '../support/process.ts';

const PASSWORD = 'the runs diff test password';
let base: string;
let token: string;
let stop: () => Promise<void>;

async function cli(args: string[]) {
  const p = paddock(args, { PADDOCK_URL: base, PADDOCK_TOKEN: token });
  const code = await p.exited;
  return { code, ...p.output() };
}

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

before(async () => {
  ({ base, token, stop } = await adminServer('runs diff test', PASSWORD));
});

after(() => stop());

test('runs diff prints the API diff exactly, exit 0; the same runs print nothing; 404 is exit 1', async () => {
  const minted = (await (
    await api('/api/v1/enroll-tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uses: 1 }),
    })
  ).json()) as { link: string };
  const enrolled = await fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(minted.link).searchParams.get('token'), name: 'differ' }),
  });
  const { device, credential } = (await enrolled.json()) as { device: string; credential: string };
  for (const [id, body] of [
    ['monday', 'alpha\nbeta\r\ngamma\n'],
    ['tuesday', 'alpha\nBETA\r\ngamma\ndelta'],
  ])
    assert.equal(
      (
        await fetch(`${base}/v1/runs/${id}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
          body,
        })
      ).status,
      201,
    );

  const diff = await cli(['runs', 'diff', `${device}/monday`, `${device}/tuesday`]);
  assert.equal(diff.code, 0, diff.stderr);
  assert.equal(diff.stderr, '');
  const fromApi = await (await api(`/api/v1/runs/${device}/monday/compare?with=${device}/tuesday`)).text();
  assert.equal(diff.stdout, fromApi);
  assert.match(diff.stdout, new RegExp(`^--- ${device}/monday\\t\\d{4}-[^\\n]+Z\\n\\+\\+\\+ ${device}/tuesday\\t`));
  assert.ok(
    diff.stdout.endsWith('@@ -1,3 +1,4 @@\n alpha\n-beta\r\n+BETA\r\n gamma\n+delta\n\\ No newline at end of file\n'),
  );

  const same = await cli(['runs', 'diff', `${device}/monday`, `${device}/monday`]);
  assert.deepEqual([same.code, same.stdout, same.stderr], [0, '', '']);

  const missing = await cli(['runs', 'diff', `${device}/monday`, `${device}/sunday`]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, '');
  assert.equal(missing.stderr, 'paddock runs: 404 not found: no such run in your scope\n');

  const usage = await cli(['runs', 'diff', `${device}/monday`, 'tuesday']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /"tuesday" is not DEVICE\/ID/);
  const help = await cli(['runs', '--help']);
  assert.match(help.stdout, /paddock runs diff DEVICE\/ID DEVICE\/ID\n\s+\(the unified diff \(diff -u\)/);
});
