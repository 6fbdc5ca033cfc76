// `paddock tokens list|create|revoke` (docs/contract.md sections 11 and 20) end to end: a real
// `paddock serve` process and the CLI as a child process. `--scope scim` makes the identity
// provider's token, which /scim/v2 takes and the JSON API refuses; revoked, SCIM refuses it too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminServer } from '../support/admin_server.ts';
import { paddock } from '../support/process.ts';

const PASSWORD = 'the tokens cli test password';
let base: string;
let token: string;
let stop: () => Promise<void>;

async function cli(args: string[], as = token) {
  const p = paddock(args, { PADDOCK_URL: base, PADDOCK_TOKEN: as });
  const code = await p.exited;
  return { code, ...p.output() };
}

before(async () => {
  ({ base, token, stop } = await adminServer('tokens cli test', PASSWORD));
});

after(() => stop());

test('tokens create --scope scim: a token for /scim/v2 only; list and revoke', async () => {
  const made = await cli(['tokens', 'create', 'okta', '--scope', 'scim', '--json']);
  assert.equal(made.code, 0, made.stderr);
  const { value, token: record } = JSON.parse(made.stdout) as { value: string; token: { id: string; scope: string } };
  assert.equal(record.scope, 'scim');
  const users = await fetch(`${base}/scim/v2/Users`, { headers: { authorization: `Bearer ${value}` } });
  assert.equal(users.status, 200);
  const api = await cli(['devices', 'list'], value);
  assert.notEqual(api.code, 0, 'the JSON API refuses a scim token');
  assert.match(api.stderr, /scim/);
  const listed = await cli(['tokens', 'list']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`${record.id}\\s+okta\\s+scim`));
  const bad = await cli(['tokens', 'create', 'x', '--scope', 'admin']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /scope must be read, write or scim/);
  const revoked = await cli(['tokens', 'revoke', record.id]);
  assert.equal(revoked.code, 0, revoked.stderr);
  const after = await fetch(`${base}/scim/v2/Users`, { headers: { authorization: `Bearer ${value}` } });
  assert.equal(after.status, 401);
});
