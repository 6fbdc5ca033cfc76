// `paddock devices owner OWNER ID…` (docs/contract.md section 19) end to end: a real `paddock
// serve` process and the CLI as a child process. Each device is handed over on its own, runs and
// all; one refused (unknown) is named on stderr and the others still go (exit 1); a bad owner is a
// usage error before anything is sent (exit 2).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminServer } from '../support/admin_server.ts';
import { paddock } from '../support/process.ts';

const PASSWORD = 'the owner cli test password';
let base: string;
let token: string;
let stop: () => Promise<void>;

async function cli(args: string[]) {
  const p = paddock(args, { PADDOCK_URL: base, PADDOCK_TOKEN: token });
  const code = await p.exited;
  return { code, ...p.output() };
}

async function enroll(link: string, name: string) {
  const res = await fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token'), name }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string };
}

before(async () => {
  ({ base, token, stop } = await adminServer('owner cli test', PASSWORD));
});

after(() => stop());

test('devices owner: several devices to a group, each on its own; refusals named; a bad owner is a usage error', async () => {
  const minted = await cli(['enroll-tokens', 'mint', '--uses', '2', '--json']);
  assert.equal(minted.code, 0, minted.stderr);
  const { link } = JSON.parse(minted.stdout) as { link: string };
  const [a, b] = [await enroll(link, 'owner-a'), await enroll(link, 'owner-b')];
  const run = await fetch(`${base}/v1/runs/r1`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${a.credential}`, 'x-privacy-level': 'full' },
    body: 'x',
  });
  assert.equal(run.status, 201);

  const moved = await cli(['devices', 'owner', 'group:field team', a.device, b.device]);
  assert.deepEqual(
    [moved.code, moved.stdout, moved.stderr],
    [0, `handed ${a.device} over to group:field team\nhanded ${b.device} over to group:field team\n`, ''],
  );
  const listed = await cli(['devices', 'list', '--owner', 'group:field team', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const items = (JSON.parse(listed.stdout) as { items: Array<{ id: string; owner: string }> }).items;
  assert.deepEqual(items.map((d) => d.id).sort(), [a.device, b.device].sort());

  const partly = await cli(['devices', 'owner', 'local:admin', a.device, 'd_nosuchdevice0000', '--json']);
  assert.equal(partly.code, 1);
  assert.deepEqual(JSON.parse(partly.stdout).handed_over, [a.device]);
  assert.match(partly.stderr, /^paddock devices owner: d_nosuchdevice0000: 404 not found/);

  const bad = await cli(['devices', 'owner', 'team:ops', b.device]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"team:ops": neither an account subject/);
  const usage = await cli(['devices', 'owner', 'group:x']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /usage: paddock devices owner OWNER ID…/);
});
