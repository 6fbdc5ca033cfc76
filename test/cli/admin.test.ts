// The admin CLI (docs/contract.md section 11) end to end: a real `paddock serve` process, and the real
// `paddock devices|enroll-tokens|runs|audit` commands as child processes with PADDOCK_URL and
// PADDOCK_TOKEN. Tables for people, the API's JSON with --json, every page with --all, the bytes
// of a run, and on failure a non-zero exit with the server's own words.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { adminServer } from '../support/admin_server.ts';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';

const PASSWORD = 'the admin cli test password';
let dir: string;
let base: string;
let token: string;
let stop: () => Promise<void>;

async function cli(args: string[], env: Record<string, string> = {}) {
  const p = paddock(args, { PADDOCK_URL: base, PADDOCK_TOKEN: token, ...env });
  const code = await p.exited;
  return { code, ...p.output() };
}

const api = async (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

async function enroll(link: string, name: string) {
  const secret = new URL(link).searchParams.get('token');
  const res = await fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: secret, name }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string };
}

const upload = (credential: string, id: string, body: string | Buffer) =>
  fetch(`${base}/v1/runs/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
    body,
  });

before(async () => {
  ({ dir, base, token, stop } = await adminServer('cli test', PASSWORD));
});

after(() => stop());

test('mint a link, enroll with it, then list, get, rename, revoke and delete devices', async () => {
  const minted = await cli(['enroll-tokens', 'mint', '--uses', '3', '--note', 'bench', '--json']);
  assert.equal(minted.code, 0, minted.stderr);
  const { token: record, link } = JSON.parse(minted.stdout) as { token: { id: string; uses: number }; link: string };
  assert.equal(record.uses, 3);
  const listed = await cli(['enroll-tokens', 'list']);
  assert.match(
    listed.stdout,
    new RegExp(`^ID +OWNER +USES LEFT[^\\n]*APPROVAL\\n${record.id} +local:admin +3/3 .* bench +- +automatic\\n`, 'm'),
  );

  const one = await enroll(link, 'first');
  const two = await enroll(link, 'second');
  const table = await cli(['devices', 'list']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^ID +NAME +OWNER +STATUS +LAST SEEN +LABELS\n/);
  for (const [id, name] of [
    [one.device, 'first'],
    [two.device, 'second'],
  ])
    assert.match(table.stdout, new RegExp(`^${id} +${name} +local:admin +active +20`, 'm'));

  const json = await cli(['devices', 'list', '--json']);
  assert.deepEqual(JSON.parse(json.stdout), await (await api('/api/v1/devices')).json(), "--json is the API's JSON");

  const renamed = await cli(['devices', 'rename', one.device, 'lab bench']);
  assert.equal(renamed.code, 0, renamed.stderr);
  assert.match(renamed.stdout, new RegExp(`^id: +${one.device}\nname: +lab bench\n`));
  const got = await cli(['devices', 'get', one.device, '--json']);
  assert.equal((JSON.parse(got.stdout) as { name: string }).name, 'lab bench');
  // The server refuses control characters in a name; the CLI would print them escaped anyway.
  const hostile = await cli(['devices', 'rename', one.device, 'lab \u001b[2J bench']);
  assert.deepEqual(
    [hostile.code, hostile.stderr],
    [1, 'paddock devices: 400 bad field: name must be 1 to 128 printable characters (field: name)\n'],
  );

  // docs/contract.md section 16: the device's next answer asks it to rotate its credential.
  assert.deepEqual(await cli(['devices', 'rotate', one.device]), {
    code: 0,
    stdout: `asked ${one.device} to rotate its credential\n`,
    stderr: '',
  });
  assert.equal((await upload(one.credential, 'asked-to-rotate', 'x')).headers.get('paddock-rotate'), 'credential');

  const early = await cli(['devices', 'delete', two.device]);
  assert.equal(early.code, 1);
  assert.equal(early.stderr, 'paddock devices: 409 conflict: revoke the device before deleting it\n');
  assert.deepEqual(await cli(['devices', 'revoke', two.device]), {
    code: 0,
    stdout: `revoked ${two.device}\n`,
    stderr: '',
  });
  assert.deepEqual(await cli(['devices', 'rotate', two.device]), {
    code: 1,
    stdout: '',
    stderr: 'paddock devices: 409 conflict: the device is revoked: it has no credential to rotate\n',
  });
  const revoked = await cli(['devices', 'list', '--status', 'revoked', '--json']);
  assert.deepEqual(
    (JSON.parse(revoked.stdout) as { items: Array<{ id: string }> }).items.map((d) => d.id),
    [two.device],
  );
  assert.equal((await cli(['devices', 'delete', two.device])).code, 0);
  assert.equal((await api(`/api/v1/devices/${two.device}`)).status, 404);
  assert.match((await cli(['enroll-tokens', 'list'])).stdout, new RegExp(`^${record.id} +local:admin +1/3 `, 'm'));
  assert.equal((await cli(['enroll-tokens', 'revoke', record.id])).code, 0);
  assert.equal((await cli(['enroll-tokens', 'list'])).stdout, 'none\n');

  const trail = await cli(['audit', '--event', 'device.revoked']);
  assert.match(trail.stdout, new RegExp(`^20\\S+ +device\\.revoked +local:admin +${two.device} `, 'm'));
});

test('labels: minted on a token, listed and filtered by, set and removed, each refusal named', async () => {
  const minted = await cli([
    'enroll-tokens',
    'mint',
    '--uses',
    '2',
    '--label',
    'site=berlin',
    '--label',
    'line=3',
    '--json',
  ]);
  assert.equal(minted.code, 0, minted.stderr);
  const { token: record, link } = JSON.parse(minted.stdout) as { token: { id: string; labels: unknown }; link: string };
  assert.deepEqual(record.labels, { line: '3', site: 'berlin' });
  assert.match(
    (await cli(['enroll-tokens', 'list'])).stdout,
    new RegExp(`^${record.id} .* line=3,site=berlin +automatic\n`, 'm'),
  );
  const one = await enroll(link, 'line 3 a');
  const two = await enroll(link, 'line 3 b');
  const plain = await enroll(
    JSON.parse((await cli(['enroll-tokens', 'mint', '--json'])).stdout).link as string,
    'plain',
  );

  const listed = await cli(['devices', 'list', '--label', 'site=berlin', '--label', 'line']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    listed.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => [l.split(/ +/)[0], l.split(/ +/).at(-1)]),
    [
      [two.device, 'line=3,site=berlin'],
      [one.device, 'line=3,site=berlin'],
    ],
  );
  assert.doesNotMatch(listed.stdout, new RegExp(plain.device));

  const changed = await cli(['devices', 'label', one.device, 'rack=a-7', 'site=paris', '--remove', 'line']);
  assert.equal(changed.code, 0, changed.stderr);
  assert.match(changed.stdout, /^labels: +rack=a-7,site=paris$/m);
  const got = JSON.parse((await cli(['devices', 'get', one.device, '--json'])).stdout) as { labels: unknown };
  assert.deepEqual(got.labels, { rack: 'a-7', site: 'paris' });
  const removed = await cli(['devices', 'label', two.device, '--remove', 'line', '--remove', 'site', '--json']);
  assert.deepEqual((JSON.parse(removed.stdout) as { labels: unknown }).labels, {});
  assert.match(
    (await cli(['audit', '--event', 'device.labelled'])).stdout,
    new RegExp(`^20\\S+ +device\\.labelled +local:admin +${one.device} .*keys=line,rack,site`, 'm'),
  );

  // Refusals: bad shapes are usage mistakes named before anything is sent; the server names the rest.
  for (const [args, says] of [
    [['devices', 'label', one.device, 'Site=x'], /devices label: label "Site=x": a label key/],
    [['devices', 'label', one.device, 'site'], /devices label: label "site": write it as key=value/],
    [['devices', 'label', one.device, 'a=1', 'a=2'], /label "a=2": the key a is given twice/],
    [['devices', 'label', one.device, '--remove', 'A'], /--remove label "A": a label key/],
    [['devices', 'label', one.device], /usage: paddock devices label ID key=value/],
    [['enroll-tokens', 'mint', '--label', 'site=a b'], /enroll-tokens mint: label "site=a b": a label value/],
  ] as const) {
    const refused = await cli([...args]);
    assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
    assert.match(refused.stderr, says);
  }
  const many = await cli(['devices', 'label', one.device, ...Array.from({ length: 19 }, (_, i) => `k${i}=v`)]);
  assert.deepEqual(
    [many.code, many.stderr],
    [1, 'paddock devices: 400 bad field: label "k0=v": a device has at most 20 labels (field: set)\n'],
  );
  const badFilter = await cli(['devices', 'list', '--label', 'Site']);
  assert.deepEqual(
    [badFilter.code, badFilter.stderr],
    [
      1,
      'paddock devices: 400 bad parameter: label must be key=value or key: label "Site": a label key is 1 to 63 of a-z, 0-9, -, _ and ., starting with a letter or digit (field: label)\n',
    ],
  );
  assert.deepEqual(
    (JSON.parse((await cli(['devices', 'get', one.device, '--json'])).stdout) as { labels: unknown }).labels,
    {
      rack: 'a-7',
      site: 'paris',
    },
  );
});

test('facts: devices listed by --fact (exact, every one holding), shown by get; a bad filter named', async () => {
  const { link } = JSON.parse((await cli(['enroll-tokens', 'mint', '--uses', '3', '--json'])).stdout) as {
    link: string;
  };
  const report = async (name: string, facts: Record<string, string>) => {
    const d = await enroll(link, name);
    const res = await fetch(`${base}/v1/device/facts`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${d.credential}` },
      body: JSON.stringify(facts),
    });
    assert.equal(res.status, 204);
    return d;
  };
  const a = await report('facts a', { os: 'linux', client_version: '9.1.0', hostname: 'gate 1 = north' });
  const b = await report('facts b', { os: 'linux', client_version: '9.0.0' });
  await report('facts c', { os: 'darwin', client_version: '9.1.0' });

  const listed = await cli(['devices', 'list', '--fact', 'os=linux', '--fact', 'client_version=9.1.0']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    listed.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/ +/)[0]),
    [a.device],
  );
  const both = await cli(['devices', 'list', '--fact', 'os=linux', '--json']);
  assert.deepEqual(
    (JSON.parse(both.stdout) as { items: Array<{ id: string }> }).items.map((d) => d.id),
    [b.device, a.device],
  );
  const spaced = await cli(['devices', 'list', '--fact', 'hostname=gate 1 = north', '--json']);
  assert.deepEqual(
    (JSON.parse(spaced.stdout) as { items: Array<{ id: string }> }).items.map((d) => d.id),
    [a.device],
  );
  const got = JSON.parse((await cli(['devices', 'get', a.device, '--json'])).stdout) as {
    facts: unknown;
    facts_reported_at: string;
  };
  assert.deepEqual(got.facts, { client_version: '9.1.0', hostname: 'gate 1 = north', os: 'linux' });
  assert.match(got.facts_reported_at, /^20\d\d-/);
  assert.match(
    (await cli(['devices', 'list', '--help'])).stdout + (await cli(['devices', 'list', '--help'])).stderr,
    /--fact KEY=VALUE/,
  );
  const bad = await cli(['devices', 'list', '--fact', 'OS=linux']);
  assert.equal(bad.code, 1);
  assert.match(
    bad.stderr,
    /400 bad parameter: fact must be key=value: fact "OS": a fact key is 1 to 63 .*\(field: fact\)/,
  );
  const noValue = await cli(['devices', 'list', '--fact', 'os']);
  assert.match(noValue.stderr, /fact "os": write the filter as key=value/);
});

test('runs: a page or every page, one run, its exact bytes, and a delete', async () => {
  const { link } = JSON.parse((await cli(['enroll-tokens', 'mint', '--json'])).stdout) as { link: string };
  const { device, credential } = await enroll(link, 'runner');
  for (let i = 0; i < 55; i++) assert.equal((await upload(credential, `r${i}`, `run ${i}`)).status, 201);
  const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
  assert.equal((await upload(credential, 'binary', bytes)).status, 201);

  const page = await cli(['runs', 'list', '--device', device]);
  assert.equal(page.stdout.trim().split('\n').length, 51, 'a header and 50 rows');
  const next = /^more: --before (\d+)$/m.exec(page.stderr)?.[1];
  assert.ok(next, page.stderr);
  const rest = await cli(['runs', 'list', '--device', device, '--before', next, '--json']);
  assert.equal((JSON.parse(rest.stdout) as { items: unknown[] }).items.length, 6);
  const all = await cli(['runs', 'list', '--device', device, '--all', '--json']);
  const items = (JSON.parse(all.stdout) as { items: Array<{ id: string }> }).items;
  assert.equal(items.length, 56);
  assert.equal(new Set(items.map((r) => r.id)).size, 56, 'no run twice');

  const one = await cli(['runs', 'get', device, 'binary']);
  assert.match(one.stdout, /^size: +70000$/m);
  const out = join(dir, 'binary.run');
  assert.equal((await cli(['runs', 'raw', device, 'binary', '--output', out])).code, 0);
  assert.deepEqual(await readFile(out), bytes);
  const downloads = async () =>
    (JSON.parse((await cli(['audit', '--event', 'run.downloaded', '--all', '--json'])).stdout) as { items: unknown[] })
      .items.length;
  const before = await downloads();
  const again = await cli(['runs', 'raw', device, 'binary', '--output', out]);
  assert.deepEqual(
    [again.code, again.stderr],
    [1, `paddock runs: ${out} already exists; remove it or choose another --output (nothing was downloaded)\n`],
    'an existing file is not overwritten',
  );
  assert.deepEqual(await readFile(out), bytes);
  assert.equal(await downloads(), before, 'refused before the download, so nothing was audited');
  const nowhere = await cli(['runs', 'raw', device, 'binary', '--output', join(dir, 'no-such-dir', 'x')]);
  assert.equal(nowhere.code, 1);
  assert.match(nowhere.stderr, /^paddock runs: cannot write .*no-such-dir.*ENOENT/);
  assert.equal(await downloads(), before, 'a directory that cannot take the file is refused first too');
  assert.deepEqual(
    (await readdir(dir)).filter((f) => f.includes('partial')),
    [],
    'no partial file left',
  );
  const stdout = paddock(['runs', 'raw', device, 'r7'], { PADDOCK_URL: base, PADDOCK_TOKEN: token });
  assert.equal(await stdout.exited, 0);
  assert.equal(stdout.output().stdout, 'run 7');

  assert.equal((await cli(['runs', 'delete', device, 'r7'])).code, 0);
  const gone = await cli(['runs', 'get', device, 'r7']);
  assert.deepEqual([gone.code, gone.stderr], [1, 'paddock runs: 404 not found: no such run in your scope\n']);
});

test("failures exit non-zero with the server's words, and tell usage, refusal and unreachable apart", async () => {
  const bad = await cli(['runs', 'list', '--privacy', 'secret']);
  assert.deepEqual(
    [bad.code, bad.stdout, bad.stderr],
    [1, '', 'paddock runs: 400 bad parameter: privacy must be full, redacted or minimal (field: privacy)\n'],
  );
  const wrong = await cli(['devices', 'list'], { PADDOCK_TOKEN: `pdk_${'A'.repeat(43)}` });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /^paddock devices: 401 unauthorized: a valid personal access token is required/);
  const missing = await cli(['devices', 'list'], { PADDOCK_TOKEN: '' });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /PADDOCK_TOKEN must hold a personal access token/);
  const notUrl = await cli(['devices', 'list'], { PADDOCK_URL: 'ftp://example' });
  assert.equal(notUrl.code, 2);
  const clear = await cli(['devices', 'list'], { PADDOCK_URL: 'http://paddock.example.org' });
  assert.deepEqual(
    [clear.code, clear.stderr],
    [
      2,
      'paddock devices: PADDOCK_URL must be https:// unless it names this machine: the token would cross the network in the clear\n',
    ],
  );
  const option = await cli(['devices', 'list', '--colour', 'red']);
  assert.equal(option.code, 2);
  assert.equal(option.stderr, 'paddock devices: unknown option --colour (see paddock devices --help)\n');
  const uses = await cli(['enroll-tokens', 'mint', '--uses', 'many']);
  assert.deepEqual([uses.code, uses.stderr], [2, 'paddock enroll-tokens: --uses must be a whole number\n']);

  // A port nothing listens on: the server cannot be reached.
  const port = await freePort();
  const away = await cli(['devices', 'list'], { PADDOCK_URL: `http://127.0.0.1:${port}` });
  assert.deepEqual(
    [away.code, away.stderr],
    [3, `paddock devices: nothing answers at http://127.0.0.1:${port}; is paddock serve running, and on this port?\n`],
  );
  // The token never appears in what the CLI prints, whatever happens.
  for (const r of [bad, wrong, option, away]) assert.ok(!`${r.stdout}${r.stderr}`.includes(token));
});

test('approval: mint --approval required, list --status pending, approve and reject several at once', async () => {
  const minted = await cli(['enroll-tokens', 'mint', '--uses', '4', '--approval', 'required', '--json']);
  assert.equal(minted.code, 0, minted.stderr);
  const { token: record, link } = JSON.parse(minted.stdout) as {
    token: { id: string; approval: string };
    link: string;
  };
  assert.equal(record.approval, 'required');
  assert.match((await cli(['enroll-tokens', 'list'])).stdout, new RegExp(`^${record.id} .* required\\n`, 'm'));
  const [a, b, c] = [await enroll(link, 'wait-a'), await enroll(link, 'wait-b'), await enroll(link, 'wait-c')];
  assert.equal((await upload(a.credential, 'early', 'x')).status, 403, 'waits');

  const pending = await cli(['devices', 'list', '--status', 'pending', '--json']);
  assert.equal(pending.code, 0, pending.stderr);
  const listed = (JSON.parse(pending.stdout) as { items: Array<{ id: string; status: string }> }).items;
  assert.deepEqual(listed.map((d) => [d.id, d.status]).sort(), [a, b, c].map((d) => [d.device, 'pending']).sort());
  assert.match((await cli(['devices', 'list', '--status', 'pending'])).stdout, /^ID +NAME +OWNER +STATUS/);

  const approved = await cli(['devices', 'approve', a.device, b.device]);
  assert.deepEqual(
    [approved.code, approved.stdout, approved.stderr],
    [0, `approved ${a.device}\napproved ${b.device}\n`, ''],
  );
  assert.equal((await upload(a.credential, 'now', 'x')).status, 201, 'approved: it uploads');

  // One does not wait any more, one does not exist: named on stderr, the others still done, exit 1.
  const rejected = await cli(['devices', 'reject', a.device, c.device, 'd_nosuchdevice0000']);
  assert.equal(rejected.code, 1);
  assert.equal(rejected.stdout, `rejected ${c.device}\n`);
  assert.match(
    rejected.stderr,
    new RegExp(`^paddock devices reject: ${a.device}: 409 conflict: the device is not waiting for approval\\n`),
  );
  assert.match(rejected.stderr, /d_nosuchdevice0000: 404 not found/);
  assert.equal((await upload(c.credential, 'late', 'x')).status, 401, 'rejected: revoked');

  const usage = await cli(['devices', 'approve']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /usage: paddock devices approve ID…/);
  const badMint = await cli(['enroll-tokens', 'mint', '--approval', 'maybe']);
  assert.equal(badMint.code, 1);
  assert.match(badMint.stderr, /approval must be automatic or required/);
});

test("mint for a group (docs/contract.md section 19): --owner group:<name>; a bad owner in the server's words", async () => {
  const minted = await cli(['enroll-tokens', 'mint', '--owner', 'group:Field Ops', '--json']);
  assert.equal(minted.code, 0, minted.stderr);
  assert.equal((JSON.parse(minted.stdout) as { token: { owner: string } }).token.owner, 'group:Field Ops');
  const bad = await cli(['enroll-tokens', 'mint', '--owner', 'group:']);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(
    bad.stderr,
    /^paddock enroll-tokens: 400 bad field: owner must be .*"group:": a group owner needs a name/,
  );
});
