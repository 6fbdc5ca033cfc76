import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bindListenPort, loadConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/parse.ts';

test('defaults of docs/contract.md section 3', () => {
  const c = loadConfig({});
  assert.deepEqual(c.listen, { host: '127.0.0.1', port: 8080 });
  assert.equal(c.baseUrl, 'http://127.0.0.1:8080');
  assert.equal(c.secure, false, 'loopback http');
  assert.equal(c.dataDir, './data');
  assert.equal(c.adminUser, 'admin');
  assert.equal(c.controlUrl, 'http://127.0.0.1:8080');
  assert.equal(c.serverName, 'paddock');
  assert.equal(c.sessionTtlSeconds, 43_200);
  assert.equal(c.enrollTokenTtlSeconds, 86_400);
  assert.equal(c.oidc.groupsClaim, 'groups');
  assert.equal(c.oidc.enabled, true);
  assert.equal(c.oidc.issuer, undefined);
});

test('Secure defaults to true for https or a non-loopback host', () => {
  assert.equal(loadConfig({ PADDOCK_BASE_URL: 'https://paddock.example' }).secure, true);
  assert.equal(loadConfig({ PADDOCK_BASE_URL: 'http://paddock.lan:8080' }).secure, true);
  assert.equal(loadConfig({ PADDOCK_SECURE: 'true' }).secure, true, 'on loopback http it may be turned on');
});

test('Secure is off only for loopback HTTP: false for any other BaseURL is refused', () => {
  assert.equal(loadConfig({ PADDOCK_BASE_URL: 'http://localhost:8080', PADDOCK_SECURE: 'false' }).secure, false);
  for (const base of ['https://paddock.example', 'http://paddock.lan:8080', 'https://127.0.0.1:8443']) {
    assert.throws(
      () => loadConfig({ PADDOCK_BASE_URL: base, PADDOCK_SECURE: 'false' }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'PADDOCK_SECURE',
      base,
    );
  }
});

test('BaseURL is kept as written (it must equal the registered URI); ControlURL defaults to it', () => {
  const c = loadConfig({ PADDOCK_BASE_URL: 'https://Admin.Example:443/' });
  assert.equal(c.baseUrl, 'https://Admin.Example:443/');
  assert.equal(c.controlUrl, 'https://Admin.Example:443/');
  assert.equal(c.controlHost, 'admin.example');
});

test('on port 0 without BaseURL, the URLs derived from the listen address take the port bound', () => {
  const c = loadConfig({ PADDOCK_LISTEN: '127.0.0.1:0' });
  assert.equal(c.baseUrl, 'http://127.0.0.1:0');
  const bound = bindListenPort(c, 41234);
  assert.equal(bound.baseUrl, 'http://127.0.0.1:41234');
  assert.equal(bound.controlUrl, 'http://127.0.0.1:41234');
  const named = bindListenPort(loadConfig({ PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_CONTROL_HOST: 'control.test' }), 5);
  assert.equal(named.controlUrl, 'http://control.test:5');
  const kept = loadConfig({ PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_BASE_URL: 'http://127.0.0.1:8080' });
  assert.equal(bindListenPort(kept, 41234).baseUrl, 'http://127.0.0.1:8080');
  const ownControl = loadConfig({ PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_CONTROL_URL: 'https://c.example' });
  assert.equal(bindListenPort(ownControl, 41234).controlUrl, 'https://c.example');
});

const bad: Array<[string, string, RegExp]> = [
  ['PADDOCK_LISTEN', 'localhost', /host:port/],
  ['PADDOCK_LISTEN', '127.0.0.1:99999', /65535/],
  ['PADDOCK_BASE_URL', 'ftp://x', /http/],
  ['PADDOCK_BASE_URL', 'not a url', /absolute URL/],
  ['PADDOCK_BASE_URL', ' https://x.example', /spaces/],
  ['PADDOCK_SECURE', 'yes', /true/],
  ['PADDOCK_OIDC_ISSUER', 'http://idp.example', /https/],
  ['PADDOCK_SESSION_KEYS', 'c2hvcnQ=', /32 bytes/],
  ['PADDOCK_SESSION_KEYS', '!!!', /base64/],
  ['PADDOCK_SESSION_TTL', '-5', /whole number/],
  ['PADDOCK_SESSION_TTL', '0', /between/],
  ['PADDOCK_ENROLL_TOKEN_TTL', '1e3', /whole number/],
  ['PADDOCK_LOG_LEVEL', 'loud', /debug/],
  ['PADDOCK_ADMIN_PASSWORD', 'short', /12 characters/],
  ['PADDOCK_ADMIN_USER', 'a b', /not allowed/],
  ['PADDOCK_OIDC_ENABLED', '1', /true/],
  ['PADDOCK_STALE_AFTER', '30', /followed by s, m, h or d/],
  ['PADDOCK_STALE_AFTER', '0d', /positive whole number/],
  ['PADDOCK_ONLINE_WITHIN', '2m', /at least 3m/],
  ['PADDOCK_ONLINE_WITHIN', '5', /followed by s, m, h or d/],
  ['PADDOCK_DEVICE_QUOTA', '1GB', /KiB, MiB or GiB/],
  ['PADDOCK_DEVICE_QUOTA', '0MiB', /positive whole number/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', 'balancer.internal', /not an IP address or a CIDR range/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', '10.0.0.0/8,,10.1.0.0/16', /empty item/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', '10.0.0.5/8', /bits set past its prefix; the range is 10\.0\.0\.0\/8/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', '2001:db8::1/32', /the range is 2001:db8::\/32/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', '10.0.0.0/33', /prefix must be 0 to 32/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', '10.0.0.0/08', /not an IP address/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', '010.0.0.1', /not an IP address/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', 'fe80::1%eth0', /not an IP address/],
  ['PADDOCK_PROXY_PROTOCOL_FROM', '::ffff:10.0.0.1', /write an IPv4 address as such/],
];
for (const [variable, value, message] of bad) {
  test(`${variable}=${value} is refused with a message naming the variable`, () => {
    assert.throws(
      () => loadConfig({ PADDOCK_OIDC_CLIENT_ID: 'x', [variable]: value }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.variable === variable &&
        message.test(err.message) &&
        err.message.startsWith(variable),
    );
  });
}

test('PADDOCK_PROXY_PROTOCOL_FROM: addresses and CIDR ranges of both families, spaces around commas; unset: none', () => {
  assert.equal(loadConfig({}).proxyProtocolFrom, undefined);
  assert.deepEqual(
    loadConfig({ PADDOCK_PROXY_PROTOCOL_FROM: '127.0.0.1 , 10.0.0.0/8,2001:db8::/32,::1' }).proxyProtocolFrom,
    [
      { address: '127.0.0.1', prefix: 32, family: 4 },
      { address: '10.0.0.0', prefix: 8, family: 4 },
      { address: '2001:db8::', prefix: 32, family: 6 },
      { address: '::1', prefix: 128, family: 6 },
    ],
  );
});

test('a secret value is never echoed in the error', () => {
  assert.throws(
    () => loadConfig({ PADDOCK_ADMIN_PASSWORD: 'tiny-secret' }),
    (err: Error) => !err.message.includes('tiny-secret'),
  );
});

test('an issuer needs a client id; http issuers are accepted on loopback', () => {
  assert.throws(() => loadConfig({ PADDOCK_OIDC_ISSUER: 'https://idp.example' }), /PADDOCK_OIDC_CLIENT_ID/);
  assert.equal(
    loadConfig({ PADDOCK_OIDC_ISSUER: 'http://127.0.0.1:9000/realm', PADDOCK_OIDC_CLIENT_ID: 'c' }).oidc.issuer,
    'http://127.0.0.1:9000/realm',
  );
});

test('several session keys: the first signs, all verify', () => {
  const k1 = Buffer.alloc(32, 1).toString('base64');
  const k2 = Buffer.alloc(48, 2).toString('base64');
  assert.deepEqual(
    loadConfig({ PADDOCK_SESSION_KEYS: `${k1}, ${k2}` }).sessionKeys?.map((k) => k.length),
    [32, 48],
  );
});

test('PADDOCK_CONTROL_TLS_CERT and _KEY: read and checked together; a mismatched or missing file is refused', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { generateSelfSignedCertificate } = await import('../../src/tls/self_signed.ts');
  const dir = mkdtempSync(join(tmpdir(), 'paddock-cfg-'));
  const make = () =>
    generateSelfSignedCertificate({ commonName: 'c', dnsNames: ['c'], notBefore: new Date(), days: 1 });
  const [a, b] = [make(), make()];
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const cert = file('a.crt', a.certPem);
  const key = file('a.key', a.keyPem);
  const otherKey = file('b.key', b.keyPem);
  assert.deepEqual(loadConfig({ PADDOCK_CONTROL_TLS_CERT: cert, PADDOCK_CONTROL_TLS_KEY: key }).controlTls, a);
  const refused = (env: Record<string, string>, variable: string) =>
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.variable === variable,
    );
  refused({ PADDOCK_CONTROL_TLS_CERT: cert }, 'PADDOCK_CONTROL_TLS_KEY');
  refused({ PADDOCK_CONTROL_TLS_CERT: cert, PADDOCK_CONTROL_TLS_KEY: otherKey }, 'PADDOCK_CONTROL_TLS_KEY');
  refused({ PADDOCK_CONTROL_TLS_CERT: key, PADDOCK_CONTROL_TLS_KEY: key }, 'PADDOCK_CONTROL_TLS_CERT');
  refused({ PADDOCK_CONTROL_TLS_CERT: join(dir, 'missing'), PADDOCK_CONTROL_TLS_KEY: key }, 'PADDOCK_CONTROL_TLS_CERT');
});

test('PADDOCK_CONTROL_URL is returned as configured', () => {
  assert.equal(
    loadConfig({ PADDOCK_CONTROL_URL: 'https://control.example:8443' }).controlUrl,
    'https://control.example:8443',
  );
});

test('under TLS the control side needs its own DNS name: the same name as BaseURL or an IP address is refused', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { generateSelfSignedCertificate } = await import('../../src/tls/self_signed.ts');
  const dir = mkdtempSync(join(tmpdir(), 'paddock-cfg-'));
  const pair = generateSelfSignedCertificate({
    commonName: 'admin.test',
    dnsNames: ['admin.test'],
    notBefore: new Date(),
    days: 1,
  });
  writeFileSync(join(dir, 'a.crt'), pair.certPem);
  writeFileSync(join(dir, 'a.key'), pair.keyPem);
  const tls = {
    PADDOCK_TLS_CERT: join(dir, 'a.crt'),
    PADDOCK_TLS_KEY: join(dir, 'a.key'),
    PADDOCK_BASE_URL: 'https://admin.test:8443',
  };
  const refused = (env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => loadConfig({ ...tls, ...env }),
      (err: unknown) =>
        err instanceof ConfigError && err.variable === 'PADDOCK_CONTROL_HOST' && message.test(err.message),
    );
  refused({}, /another host name than BaseURL's \(admin\.test\)/);
  refused({ PADDOCK_CONTROL_HOST: 'ADMIN.test' }, /another host name/);
  refused({ PADDOCK_CONTROL_URL: 'https://admin.test:9443' }, /another host name/);
  refused({ PADDOCK_CONTROL_HOST: '10.0.0.5' }, /not an IP address/);
  refused({ PADDOCK_CONTROL_URL: 'https://[2001:db8::1]:8443' }, /not an IP address/);
  assert.equal(loadConfig({ ...tls, PADDOCK_CONTROL_HOST: 'control.test' }).controlHost, 'control.test');
  for (const controlUrl of ['https://10.0.0.5:8443', 'https://admin.test:8443', 'https://other.test']) {
    assert.throws(
      () => loadConfig({ ...tls, PADDOCK_CONTROL_HOST: 'control.test', PADDOCK_CONTROL_URL: controlUrl }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'PADDOCK_CONTROL_URL',
      controlUrl,
    );
  }
  assert.equal(
    loadConfig({ ...tls, PADDOCK_CONTROL_HOST: 'control.test', PADDOCK_CONTROL_URL: 'https://CONTROL.test:9443' })
      .controlUrl,
    'https://CONTROL.test:9443',
  );
  // Without TLS one name serves both sides (the loopback default).
  assert.equal(loadConfig({}).controlHost, '127.0.0.1');
});

test('durations: a positive integer and s, m, h or d; anything else refused', async () => {
  const { parseDuration } = await import('../../src/config/parse.ts');
  assert.equal(parseDuration('45s'), 45_000);
  assert.equal(parseDuration('30m'), 1_800_000);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.equal(parseDuration('30d'), 2_592_000_000);
  for (const bad of ['', '0d', '-1d', '1.5d', '30', 'd', '30 d', '30D', '1w', '01d', '99999d', '1d '])
    assert.throws(() => parseDuration(bad), /must be/, JSON.stringify(bad));
});
