// `paddock runs list --text WORDS` (docs/contract.md section 21) end to end: a real `paddock serve`
// process and the CLI as a child process. The runs holding every word, with the other flags, each
// with its first matching line (LINE and MATCH columns, `match` in --json); a bad text is the
// server's own words on stderr and a non-zero exit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminServer } from '../support/admin_server.ts';
import { paddock } from '../support/process.ts';

const PASSWORD = 'the run search cli test password';
let base: string;
let token: string;
let stop: () => Promise<void>;
let device: string;

async function cli(args: string[]) {
  const p = paddock(args, { PADDOCK_URL: base, PADDOCK_TOKEN: token });
  const code = await p.exited;
  return { code, ...p.output() };
}

before(async () => {
  ({ base, token, stop } = await adminServer('run search cli test', PASSWORD));
  const minted = await cli(['enroll-tokens', 'mint', '--json']);
  const { link } = JSON.parse(minted.stdout) as { link: string };
  const res = await fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token'), name: 'searched' }),
  });
  const enrolled = (await res.json()) as { device: string; credential: string };
  device = enrolled.device;
  for (const [id, body, level] of [
    ['boot', 'started\nkernel panic at boot\n', 'full'],
    ['calm', 'all quiet\n', 'full'],
    ['later', 'Kernel PANIC again\n', 'minimal'],
  ]) {
    const put = await fetch(`${base}/v1/runs/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${enrolled.credential}`, 'x-privacy-level': level ?? 'full' },
      body,
    });
    assert.equal(put.status, 201);
  }
});

after(() => stop());

test('runs list --text: the runs found, each with its matching line', async () => {
  const found = await cli(['runs', 'list', '--text', 'kernel panic']);
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stdout, /^DEVICE +ID +PRIVACY +SIZE +UPLOADED +FLAGGED +LINE +MATCH\n/);
  const rows = found.stdout.trim().split('\n').slice(1);
  assert.equal(rows.length, 2);
  assert.match(rows[0] ?? '', new RegExp(`^${device} +later +minimal .* 1 +Kernel PANIC again$`));
  assert.match(rows[1] ?? '', new RegExp(`^${device} +boot +full .* 2 +kernel panic at boot$`));

  const phrase = await cli(['runs', 'list', '--text', '"kernel panic"', '--privacy', 'full', '--json']);
  assert.equal(phrase.code, 0, phrase.stderr);
  const json = JSON.parse(phrase.stdout) as { items: Array<{ id: string; match: { line: number; text: string } }> };
  assert.deepEqual(
    json.items.map((r) => [r.id, r.match]),
    [['boot', { line: 2, text: 'kernel panic at boot' }]],
  );

  const plain = await cli(['runs', 'list']);
  assert.match(plain.stdout, /^DEVICE +ID +PRIVACY +SIZE +UPLOADED +FLAGGED\n/, 'no match columns without --text');
});

test('a bad --text: the server says why, exit non-zero', async () => {
  const bad = await cli(['runs', 'list', '--text', '"unclosed']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /closing quote/);
  assert.equal(bad.stdout, '');
});
