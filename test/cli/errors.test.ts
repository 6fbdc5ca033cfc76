// The mistakes a user makes, for every command, against real processes: an unknown command names
// the nearest one in one line; an unknown option names itself (and the nearest option) without
// parseArgs's advice; both exit 2. A bad URL, a server that does not answer, a plain-HTTP server
// asked for TLS and a certificate the system does not trust each get one line saying what to do,
// and following that advice works.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';
import { consoleClient } from '../multi/client.ts';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';

const PASSWORD = 'the cli errors test password';
/** Syntactically a token, known to no server. */
const STRANGER = `pdk_${'A'.repeat(43)}`;
let dir: string;
let plain: string;
let plainPort: number;
/** A plain HTTP server that is not Paddock: it never answers TLS (Paddock's plain port does, for devices). */
let httpOnlyPort: number;
let tlsPort: number;
let caFile: string;
let token: string;
const stops: Array<() => Promise<void>> = [];

async function run(args: string[], env: Record<string, string> = {}, input = '') {
  // stdin is closed (empty) unless given: set-admin-password reads its password there.
  const p = paddock(args, { PADDOCK_DATA_DIR: join(dir, 'unused'), PADDOCK_LISTEN: '127.0.0.1:0', ...env }, input);
  const code = await p.exited;
  return { code, ...p.output() };
}

async function serve(env: Record<string, string>): Promise<string> {
  const p = paddock(['serve'], { PADDOCK_ADMIN_PASSWORD: PASSWORD, ...env });
  const url = (await p.waitFor(/serving on (https?:\/\/\S+)/))[1] ?? '';
  stops.push(async () => {
    p.child.kill('SIGTERM');
    await p.exited;
  });
  return url;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paddock-cli-errors-'));
  plain = await serve({ PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: join(dir, 'plain') });
  plainPort = Number(new URL(plain).port);
  const httpOnly = createServer((_, res) => res.writeHead(404).end('not paddock'));
  await new Promise<void>((resolve) => httpOnly.listen(0, '127.0.0.1', resolve));
  httpOnlyPort = (httpOnly.address() as AddressInfo).port;
  stops.push(() => new Promise<void>((resolve) => httpOnly.close(() => resolve())));
  token = await consoleClient(() => PASSWORD).accessToken(plain, 'errors test');
  // A TLS server whose certificate (self-signed, for localhost) no system trusts.
  const pair = generateSelfSignedCertificate({
    commonName: 'localhost',
    dnsNames: ['localhost'],
    notBefore: new Date(Date.now() - 60_000),
    days: 3,
  });
  caFile = join(dir, 'localhost.crt');
  await writeFile(caFile, pair.certPem);
  await writeFile(join(dir, 'localhost.key'), pair.keyPem);
  tlsPort = await freePort();
  await serve({
    PADDOCK_LISTEN: `127.0.0.1:${tlsPort}`,
    PADDOCK_DATA_DIR: join(dir, 'tls'),
    PADDOCK_BASE_URL: `https://localhost:${tlsPort}`,
    PADDOCK_CONTROL_HOST: 'control.test',
    PADDOCK_TLS_CERT: caFile,
    PADDOCK_TLS_KEY: join(dir, 'localhost.key'),
  });
});

after(async () => {
  await Promise.all(stops.map((stop) => stop()));
  await rm(dir, { recursive: true, force: true });
});

const PARSE_ARGS_ADVICE = /positional argument|after '--'|Unknown option/;

// Unknown commands: each top-level command with a letter missing, and each command's sub-commands.
const unknownCommands: Array<[string[], string]> = [
  [['serv'], 'paddock: unknown command "serv"; did you mean "serve"? (see paddock --help)'],
  [
    ['set-admin-pasword'],
    'paddock: unknown command "set-admin-pasword"; did you mean "set-admin-password"? (see paddock --help)',
  ],
  [['chek'], 'paddock: unknown command "chek"; did you mean "check"? (see paddock --help)'],
  [['bakup'], 'paddock: unknown command "bakup"; did you mean "backup"? (see paddock --help)'],
  [['restor'], 'paddock: unknown command "restor"; did you mean "restore"? (see paddock --help)'],
  [['devise'], 'paddock: unknown command "devise"; did you mean "device"? (see paddock --help)'],
  [['enroll-token'], 'paddock: unknown command "enroll-token"; did you mean "enroll-tokens"? (see paddock --help)'],
  [['run'], 'paddock: unknown command "run"; did you mean "runs"? (see paddock --help)'],
  [['audti'], 'paddock: unknown command "audti"; did you mean "audit"? (see paddock --help)'],
  [['frobnicate'], 'paddock: unknown command "frobnicate" (see paddock --help)'],
  [['device', 'enrol'], 'paddock device: unknown command "enrol"; did you mean "enroll"? (see paddock device --help)'],
  [
    ['devices', 'revok', 'd_x'],
    'paddock devices: unknown command "revok"; did you mean "revoke"? (see paddock devices --help)',
  ],
  [
    ['enroll-tokens', 'mnit'],
    'paddock enroll-tokens: unknown command "mnit"; did you mean "mint"? (see paddock enroll-tokens --help)',
  ],
  [['runs', 'download'], 'paddock runs: unknown command "download" (see paddock runs --help)'],
  [['audit', 'lsit'], 'paddock audit: unknown command "lsit"; did you mean "list"? (see paddock audit --help)'],
];

for (const [args, line] of unknownCommands) {
  test(`paddock ${args.join(' ')}: one line naming the nearest command, exit 2`, async () => {
    const r = await run(args, { PADDOCK_URL: plain, PADDOCK_TOKEN: token });
    assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', `${line}\n`]);
  });
}

// Unknown options on every command, and a near one named.
const unknownOptions: Array<[string[], string]> = [
  [['serve', '--colour'], 'paddock serve: unknown option --colour (see paddock serve --help)'],
  [
    ['set-admin-password', '--user', 'x'],
    'paddock set-admin-password: unknown option --user (see paddock set-admin-password --help)',
  ],
  [['check', '--hlep'], 'paddock check: unknown option --hlep; did you mean --help? (see paddock check --help)'],
  [['backup', '--force', 'x.db'], 'paddock backup: unknown option --force (see paddock backup --help)'],
  [['restore', '-f', 'x.db'], 'paddock restore: unknown option -f (see paddock restore --help)'],
  [
    ['device', 'enroll', 'paddock://enroll', '--nmae', 'x'],
    'paddock device: unknown option --nmae; did you mean --name? (see paddock device --help)',
  ],
  [
    ['device', 'upload', 'run.txt', '--privacy', 'full', '--level', 'x'],
    'paddock device: unknown option --level (see paddock device --help)',
  ],
  [
    ['devices', 'list', '--stauts', 'active'],
    'paddock devices: unknown option --stauts; did you mean --status? (see paddock devices --help)',
  ],
  [
    ['enroll-tokens', 'mint', '--use', '3'],
    'paddock enroll-tokens: unknown option --use; did you mean --uses? (see paddock enroll-tokens --help)',
  ],
  [['runs', 'list', '--level=full'], 'paddock runs: unknown option --level (see paddock runs --help)'],
  [
    ['audit', '--evnet', 'x'],
    'paddock audit: unknown option --evnet; did you mean --event? (see paddock audit --help)',
  ],
  [['runs', 'list', '--device'], 'paddock runs: option --device needs a value (see paddock runs --help)'],
  [['check', 'now'], 'paddock check: unexpected argument "now" (see paddock check --help)'],
];

for (const [args, line] of unknownOptions) {
  test(`paddock ${args.join(' ')}: one line without parseArgs's advice, exit 2`, async () => {
    const r = await run(args, { PADDOCK_URL: plain, PADDOCK_TOKEN: token });
    assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', `${line}\n`]);
    assert.doesNotMatch(r.stderr, PARSE_ARGS_ADVICE);
  });
}

// The admin commands over the API: each gets the same transport messages.
const adminCommands = [['devices', 'list'], ['enroll-tokens', 'list'], ['runs', 'list'], ['audit']];

for (const args of adminCommands) {
  const verb = args[0];
  test(`paddock ${args.join(' ')}: bad URL, unreachable, no TLS, untrusted certificate, /api/v1`, async () => {
    const bad = await run(args, { PADDOCK_URL: 'paddock.example', PADDOCK_TOKEN: token });
    assert.deepEqual(
      [bad.code, bad.stderr],
      [
        2,
        `paddock ${verb}: PADDOCK_URL must be the console address, such as https://paddock.example (no credentials, query or fragment)\n`,
      ],
    );

    const port = await freePort();
    const away = await run(args, { PADDOCK_URL: `http://127.0.0.1:${port}`, PADDOCK_TOKEN: token });
    assert.deepEqual(
      [away.code, away.stderr],
      [
        3,
        `paddock ${verb}: nothing answers at http://127.0.0.1:${port}; is paddock serve running, and on this port?\n`,
      ],
    );
    const nowhere = await run(args, { PADDOCK_URL: 'https://paddock.invalid', PADDOCK_TOKEN: token });
    assert.deepEqual(
      [nowhere.code, nowhere.stderr],
      [3, `paddock ${verb}: cannot find the host paddock.invalid; check the address (is it spelled right?)\n`],
    );

    const notTls = await run(args, { PADDOCK_URL: `https://127.0.0.1:${httpOnlyPort}`, PADDOCK_TOKEN: token });
    assert.deepEqual(
      [notTls.code, notTls.stderr],
      [
        3,
        `paddock ${verb}: the server at https://127.0.0.1:${httpOnlyPort} does not speak TLS; use PADDOCK_URL=http://127.0.0.1:${httpOnlyPort}\n`,
      ],
    );
    // Paddock's own plain port answers TLS with the devices' certificate: the advice names both ways.
    const quickStart = await run(args, { PADDOCK_URL: `https://127.0.0.1:${plainPort}`, PADDOCK_TOKEN: token });
    assert.deepEqual(
      [quickStart.code, quickStart.stderr],
      [
        3,
        `paddock ${verb}: the certificate of https://127.0.0.1:${plainPort} is not trusted (self-signed); trust its CA (or the self-signed certificate itself) with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, or, if this is the plain port of the quick start, use PADDOCK_URL=http://127.0.0.1:${plainPort}\n`,
      ],
    );
    // Following that advice works.
    const asAdvised = await run(args, { PADDOCK_URL: `http://127.0.0.1:${plainPort}`, PADDOCK_TOKEN: token });
    assert.equal(asAdvised.code, 0, asAdvised.stderr);

    const tls = `https://localhost:${tlsPort}`;
    const untrusted = await run(args, { PADDOCK_URL: tls, PADDOCK_TOKEN: STRANGER });
    assert.deepEqual(
      [untrusted.code, untrusted.stderr],
      [
        3,
        `paddock ${verb}: the certificate of ${tls} is not trusted (self-signed); trust its CA (or the self-signed certificate itself) with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, or, if this is the plain port of the quick start, use PADDOCK_URL=http://localhost:${tlsPort}\n`,
      ],
    );
    // With NODE_EXTRA_CA_CERTS the connection is made, and the server itself answers (this token is unknown to it).
    const trusted = await run(args, { PADDOCK_URL: tls, PADDOCK_TOKEN: STRANGER, NODE_EXTRA_CA_CERTS: caFile });
    assert.equal(trusted.code, 1, trusted.stderr);
    assert.match(trusted.stderr, new RegExp(`^paddock ${verb}: 401 unauthorized`));

    // The API's own address, as the OpenAPI document names it, is taken for the console's.
    const api = await run(args, { PADDOCK_URL: `${plain}/api/v1`, PADDOCK_TOKEN: token });
    assert.equal(api.code, 0, api.stderr);
    assert.deepEqual(api.stdout, asAdvised.stdout);
    for (const r of [bad, away, nowhere, notTls, untrusted, api]) assert.ok(!`${r.stdout}${r.stderr}`.includes(token));
  });
}

test('paddock device enroll: bad link, unreachable, no TLS, certificate not matching the pin', async () => {
  const pin = `sha256/${Buffer.alloc(32, 7).toString('base64')}`;
  const link = (control: string) =>
    `paddock://enroll?server=127.0.0.1&pin=${encodeURIComponent(pin)}&token=abcdef&control=${encodeURIComponent(control)}`;
  const state = join(dir, 'device.json');
  const enroll = (l: string) => run(['device', 'enroll', l, '--state', state]);

  const bad = await enroll('https://127.0.0.1/enroll?token=abcdef');
  assert.deepEqual([bad.code, bad.stderr], [2, 'paddock device: enrollment link: must start with paddock://enroll?\n']);

  const port = await freePort();
  const away = await enroll(link(`https://127.0.0.1:${port}`));
  assert.deepEqual(
    [away.code, away.stderr],
    [3, `paddock device: nothing answers at https://127.0.0.1:${port}; is paddock serve running, and on this port?\n`],
  );

  const notTls = await enroll(link(`https://127.0.0.1:${httpOnlyPort}`));
  assert.deepEqual(
    [notTls.code, notTls.stderr],
    [
      3,
      `paddock device: the server at https://127.0.0.1:${httpOnlyPort} does not speak TLS; devices connect over TLS only: the server needs TLS (see "TLS on one port" in the README)\n`,
    ],
  );

  const mismatch = await enroll(link(`https://127.0.0.1:${tlsPort}`));
  assert.equal(mismatch.code, 1);
  assert.match(
    mismatch.stderr,
    /^paddock device: pin mismatch: 127\.0\.0\.1:\d+ presented a certificate with pin sha256\/\S+, but the enrollment link pins sha256\/\S+; nothing was sent\n$/,
  );

  const upload = await run(['device', 'upload', join(dir, 'run.txt'), '--privacy', 'secret']);
  assert.deepEqual([upload.code, upload.stderr], [2, 'paddock device: --privacy must be full, redacted or minimal\n']);
  const resolve = await run(['device', 'upload', 'x', '--privacy', 'full', '--resolve', 'nocolon']);
  assert.deepEqual([resolve.code, resolve.stderr], [2, 'paddock device: --resolve nocolon: expected HOST:ADDRESS\n']);
});

test('paddock check: a bad issuer URL, an issuer nothing answers at, one whose certificate is not trusted', async () => {
  const env = { PADDOCK_DATA_DIR: join(dir, 'check'), PADDOCK_OIDC_CLIENT_ID: 'paddock' };
  const bad = await run(['check'], { ...env, PADDOCK_OIDC_ISSUER: 'id.example' });
  assert.equal(bad.code, 2);
  assert.match(bad.stdout, /^FAIL configuration: PADDOCK_OIDC_ISSUER/m);

  const port = await freePort();
  const away = await run(['check'], { ...env, PADDOCK_OIDC_ISSUER: `http://127.0.0.1:${port}` });
  assert.equal(away.code, 1);
  assert.match(
    away.stdout,
    new RegExp(
      `^FAIL identity provider: http://127\\.0\\.0\\.1:${port}: nothing answers at http://127\\.0\\.0\\.1:${port}; is the identity provider running, and on this port\\?$`,
      'm',
    ),
  );

  const issuer = `https://localhost:${tlsPort}`;
  const untrusted = await run(['check'], { ...env, PADDOCK_OIDC_ISSUER: issuer });
  assert.equal(untrusted.code, 1);
  assert.match(
    untrusted.stdout,
    new RegExp(
      `^FAIL identity provider: ${issuer}: the certificate of ${issuer} is not trusted \\(self-signed\\); trust its CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, for check and serve alike$`,
      'm',
    ),
  );
  // Trusted as advised, the provider is reached (Paddock is no identity provider: it answers 404).
  const trusted = await run(['check'], { ...env, PADDOCK_OIDC_ISSUER: issuer, NODE_EXTRA_CA_CERTS: caFile });
  assert.match(trusted.stdout, new RegExp(`^FAIL identity provider: ${issuer}: discovery answered \\d{3}$`, 'm'));
});

test('paddock serve, backup, restore, set-admin-password: a bad URL and an unreachable database in one line', async () => {
  const badBase = await run(['serve'], { PADDOCK_BASE_URL: 'console.example' });
  assert.equal(badBase.code, 2);
  assert.match(badBase.stderr, /^paddock: PADDOCK_BASE_URL[^\n]*\n$/);
  const port = await freePort();
  const database = `postgres://postgres@127.0.0.1:${port}/x`;
  const away = await run(['serve'], { PADDOCK_DATABASE_URL: database });
  assert.deepEqual(
    [away.code, away.stderr],
    [2, `paddock: PADDOCK_DATABASE_URL: cannot use the database: connect ECONNREFUSED 127.0.0.1:${port}\n`],
  );
  const password = await run(['set-admin-password'], { PADDOCK_DATABASE_URL: database }, 'a long enough password\n');
  assert.notEqual(password.code, 0);
  assert.match(password.stderr, /^paddock: [^\n]*ECONNREFUSED[^\n]*\n$/);
  for (const verb of ['backup', 'restore']) {
    const r = await run([verb, join(dir, 'x.db')], { PADDOCK_DATABASE_URL: database });
    assert.deepEqual(
      [r.code, r.stderr],
      [
        2,
        `paddock ${verb}: the store is PostgreSQL (PADDOCK_DATABASE_URL): use pg_dump and pg_restore, as the README shows\n`,
      ],
    );
  }
});
