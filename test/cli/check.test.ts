// `paddock check` (issue 16) as a real process: one line per check, nothing served or changed,
// and exit codes a script or an init container can act on (0 all passed, 1 a check failed,
// 2 the configuration is invalid).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';
import { startFakeProvider } from '../support/fake_oidc_provider.ts';
import { databaseUrl, dropDatabase, freshDatabase, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { paddock, serveOnce } from '../support/process.ts';
import { freePort, tlsFixture } from '../support/tls_fixture.ts';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function check(env: Record<string, string>) {
  const p = paddock(['check'], { PADDOCK_LISTEN: '127.0.0.1:0', ...env });
  const code = await p.exited;
  return { code, ...p.output() };
}

async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-check-'));
  dirs.push(dir);
  return dir;
}

test('a new installation: every check passes, and the data directory is left as it was', async () => {
  const dir = await workspace();
  const r = await check({ PADDOCK_DATA_DIR: join(dir, 'data'), PADDOCK_LISTEN: '127.0.0.1:8080' });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(
    r.stdout,
    [
      'ok   configuration: valid; console at http://127.0.0.1:8080',
      `ok   store: SQLite ${join(dir, 'data', 'paddock.db')}, none yet: created at the first start`,
      `ok   seal key: ${join(dir, 'data', 'seal.key')}: none yet: made at the next start (keep it: no backup of the store holds it)`,
      'skip identity provider: not configured: the break-glass password only',
      'skip certificate PADDOCK_TLS_CERT: no TLS configured: plain HTTP on a loopback address',
      'skip control certificate: none yet: generated at the first start, kept in the store',
      'skip audit syslog collector: not configured (PADDOCK_AUDIT_SYSLOG)',
      '',
    ].join('\n'),
  );
  assert.deepEqual(await readdir(dir), [], 'nothing was created');
});

test('a served store, a reachable provider and valid certificates: ok with what was found', async () => {
  const fx = await tlsFixture();
  dirs.push(fx.dir);
  const provider = await startFakeProvider();
  try {
    const data = join(fx.dir, 'data');
    await serveOnce({ PADDOCK_DATA_DIR: data });
    const r = await check({
      PADDOCK_DATA_DIR: data,
      PADDOCK_BASE_URL: 'https://admin.test:8443',
      PADDOCK_CONTROL_HOST: 'control.test',
      PADDOCK_TLS_CERT: fx.admin.certFile,
      PADDOCK_TLS_KEY: fx.admin.keyFile,
      PADDOCK_CONTROL_TLS_CERT: fx.control.certFile,
      PADDOCK_CONTROL_TLS_KEY: fx.control.keyFile,
      PADDOCK_OIDC_ISSUER: provider.issuer,
      PADDOCK_OIDC_CLIENT_ID: provider.clientId,
      PADDOCK_OIDC_CLIENT_SECRET: provider.clientSecret,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok {3}store: SQLite .*paddock\.db, schema version \d+$/m);
    assert.match(r.stdout, new RegExp(`^ok {3}identity provider: ${provider.issuer} discovery answered`, 'm'));
    assert.match(r.stdout, /^ok {3}certificate PADDOCK_TLS_CERT: DNS:admin\.test, valid until .* \(2\d days left\)$/m);
    assert.match(r.stdout, /^ok {3}certificate PADDOCK_CONTROL_TLS_CERT: DNS:control\.test, valid until/m);
    assert.ok(!r.stdout.includes(provider.clientSecret), 'no secret is printed');
  } finally {
    await provider.close();
  }
});

test('an invalid setting: exit 2 with one line naming it, nothing else checked', async () => {
  const r = await check({ PADDOCK_DATA_DIR: '/nonexistent/check', PADDOCK_SWEEP_INTERVAL: 'often' });
  assert.equal(r.code, 2);
  assert.match(r.stdout, /^FAIL configuration: PADDOCK_SWEEP_INTERVAL: [^\n]+\n$/);
});

test('an unreachable provider, a newer schema and an expired certificate each fail: exit 1', async () => {
  const dir = await workspace();
  const data = join(dir, 'data');
  await serveOnce({ PADDOCK_DATA_DIR: data });
  const db = new DatabaseSync(join(data, 'paddock.db'));
  db.prepare("INSERT INTO migrations (name, applied_at) VALUES ('from-the-future', 0)").run();
  db.close();
  const expired = generateSelfSignedCertificate({
    commonName: 'admin.test',
    dnsNames: ['admin.test'],
    notBefore: new Date(Date.now() - 40 * 86_400_000),
    days: 30,
  });
  await writeFile(join(dir, 'old.crt'), expired.certPem);
  await writeFile(join(dir, 'old.key'), expired.keyPem);
  const port = await freePort();
  const r = await check({
    PADDOCK_DATA_DIR: data,
    PADDOCK_BASE_URL: 'https://admin.test:8443',
    PADDOCK_CONTROL_HOST: 'control.test',
    PADDOCK_TLS_CERT: join(dir, 'old.crt'),
    PADDOCK_TLS_KEY: join(dir, 'old.key'),
    PADDOCK_OIDC_ISSUER: `http://127.0.0.1:${port}`,
    PADDOCK_OIDC_CLIENT_ID: 'paddock',
  });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^FAIL store: SQLite .*: the store's schema is version \d+, newer than this build's \d+/m);
  assert.match(r.stdout, new RegExp(`^FAIL identity provider: http://127\\.0\\.0\\.1:${port}: .+$`, 'm'));
  assert.match(r.stdout, /^FAIL certificate PADDOCK_TLS_CERT: DNS:admin\.test: expired on /m);
  assert.match(
    r.stdout,
    /^ok {3}control certificate: generated, IP Address:127\.0\.0\.1, .*; it does not name control\.test/m,
  );
  assert.equal(r.stdout.trim().split('\n').length, 7, 'one line per check');
});

test('the control certificate: its days left, and a name that is not the control host', async () => {
  const fx = await tlsFixture();
  dirs.push(fx.dir);
  const data = join(fx.dir, 'data');
  await serveOnce({ PADDOCK_DATA_DIR: data });
  const plain = await check({ PADDOCK_DATA_DIR: data });
  assert.equal(plain.code, 0, plain.stdout);
  assert.match(plain.stdout, /^ok {3}seal key: .*seal\.key opens the store's secrets$/m);
  assert.match(
    plain.stdout,
    /^ok {3}control certificate: generated, IP Address:127\.0\.0\.1, valid until .* \(39[67] days left\)$/m,
  );

  const tls = {
    PADDOCK_BASE_URL: 'https://admin.test:8443',
    PADDOCK_CONTROL_HOST: 'control.test',
    PADDOCK_TLS_CERT: fx.admin.certFile,
    PADDOCK_TLS_KEY: fx.admin.keyFile,
  };
  // A store first served plain: its certificate names 127.0.0.1 until the next start reissues it.
  const before = await check({ PADDOCK_DATA_DIR: data, ...tls });
  assert.equal(before.code, 0, before.stdout);
  assert.match(
    before.stdout,
    /^ok {3}control certificate: generated, IP Address:127\.0\.0\.1, .*; it does not name control\.test: the next start reissues it with the same key$/m,
  );
  await serveOnce({ PADDOCK_DATA_DIR: data, ...tls });
  const after = await check({ PADDOCK_DATA_DIR: data, ...tls });
  assert.match(
    after.stdout,
    /^ok {3}control certificate: generated, DNS:control\.test, valid until .* \(39[67] days left\)$/m,
  );

  // A configured certificate for another name than the one it is served for fails.
  const wrong = await check({ PADDOCK_DATA_DIR: data, ...tls, PADDOCK_BASE_URL: 'https://console.test:8443' });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stdout, /^FAIL certificate PADDOCK_TLS_CERT: DNS:admin\.test: does not name console\.test$/m);
});

test("a seal key that is missing or not the store's: exit 2, and the control certificate is not read", async () => {
  const dir = await workspace();
  const data = join(dir, 'data');
  await serveOnce({ PADDOCK_DATA_DIR: data });
  const key = join(data, 'seal.key');
  await rename(key, join(dir, 'kept.key'));
  const missing = await check({ PADDOCK_DATA_DIR: data });
  assert.equal(missing.code, 2, missing.stdout);
  assert.match(
    missing.stdout,
    new RegExp(`^FAIL seal key: ${key} does not exist, and the store's secrets are sealed`, 'm'),
  );
  assert.match(missing.stdout, /^skip control certificate: sealed in the store, and the seal key cannot open it$/m);
  await writeFile(key, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const wrong = await check({ PADDOCK_DATA_DIR: data });
  assert.equal(wrong.code, 2, wrong.stdout);
  assert.match(
    wrong.stdout,
    new RegExp(`^FAIL seal key: ${key} is not the seal key the store's secrets are sealed with: `, 'm'),
  );
});

const available = await postgresAvailable();

test(
  'PostgreSQL: the schema version is read; a database that does not answer fails',
  {
    skip: !available && SKIP_REASON,
  },
  async () => {
    const dir = await workspace();
    const name = await freshDatabase();
    try {
      const env = { PADDOCK_DATA_DIR: join(dir, 'data'), PADDOCK_DATABASE_URL: databaseUrl(name) };
      const empty = await check(env);
      assert.equal(empty.code, 0, empty.stdout);
      assert.match(
        empty.stdout,
        /^ok {3}store: PostgreSQL 127\.0\.0\.1:5432, schema version 0; the next start migrates it to \d+$/m,
      );
      await serveOnce(env);
      const served = await check(env);
      assert.match(served.stdout, /^ok {3}store: PostgreSQL 127\.0\.0\.1:5432, schema version \d+$/m);
      const port = await freePort();
      const away = await check({ ...env, PADDOCK_DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${port}/x` });
      assert.equal(away.code, 1);
      assert.match(away.stdout, /^FAIL store: cannot use the store: .*ECONNREFUSED/m);
      assert.ok(!away.stdout.includes('hunter2'), 'the password in the URL is never printed');
    } finally {
      await dropDatabase(name);
    }
  },
);
