/**
 * Where a webhook may not go (docs/contract.md section 13): every refused kind of address, by
 * the check on real addresses, through the resolver (a name that resolves to loopback) and on the
 * address connected to; http:// and credentials in the URL. PADDOCK_WEBHOOK_ALLOW_PRIVATE lifts it.
 * A receiver listens on loopback to prove that a refused attempt never reaches it.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';
import { send } from '../../src/webhooks/send.ts';
import { checkUrl, refusedAddress } from '../../src/webhooks/target.ts';

test('every refused kind of address is named; public addresses pass', () => {
  const cases: Array<[string, string | undefined]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified or reserved'],
    ['::', 'unspecified or reserved'],
    ['255.255.255.255', 'unspecified or reserved'],
    ['93.184.216.34', undefined],
    ['172.32.0.1', undefined],
    ['2606:2800:220:1:248:1893:25c8:1946', undefined],
  ];
  for (const [address, kind] of cases) assert.equal(refusedAddress(address), kind, address);
});

test('a URL must be https (http only when private targets are allowed), without credentials', () => {
  assert.deepEqual(checkUrl('http://example.com/x', false), { ok: false, reason: 'the URL must be https://' });
  assert.equal(checkUrl('http://example.com/x', true).ok, true);
  assert.equal(checkUrl('https://example.com/x', false).ok, true);
  assert.deepEqual(checkUrl('ftp://example.com/', true), { ok: false, reason: 'the URL must be https:// or http://' });
  assert.deepEqual(checkUrl('https://u:p@example.com/', false), {
    ok: false,
    reason: 'the URL must not hold a user or password',
  });
  assert.deepEqual(checkUrl('https://169.254.169.254/latest/meta-data', false), {
    ok: false,
    reason: "the URL's address is link-local",
  });
  assert.deepEqual(checkUrl('https://[::1]/', false), { ok: false, reason: "the URL's address is loopback" });
  assert.deepEqual(checkUrl('not a url', false), { ok: false, reason: 'the URL is not an absolute URL' });
});

test('the sender refuses loopback by literal and by name (after DNS), and reaches it only when allowed', async () => {
  const cert = generateSelfSignedCertificate({
    commonName: 'localhost',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(Date.now() - 60_000),
    days: 1,
  });
  let hits = 0;
  const server = createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => {
    hits++;
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const byName = await send(new URL(`https://localhost:${port}/`), {}, '{}', {
      allowPrivate: false,
      ca: cert.certPem,
    });
    assert.equal('error' in byName && byName.error, 'refused: loopback address');
    const byLiteral = await send(new URL(`https://127.0.0.1:${port}/`), {}, '{}', {
      allowPrivate: false,
      ca: cert.certPem,
    });
    assert.equal('error' in byLiteral && byLiteral.error, 'refused: loopback address');
    const mapped = await send(new URL(`https://[::ffff:127.0.0.1]:${port}/`), {}, '{}', { allowPrivate: false });
    assert.equal('error' in mapped && mapped.error, 'refused: loopback address');
    assert.equal(hits, 0, 'no refused attempt reached the receiver');
    // The self-signed receiver is trusted by the injected CA (the tests' way to https on loopback).
    const allowed = await send(new URL(`https://localhost:${port}/`), {}, '{}', {
      allowPrivate: true,
      ca: cert.certPem,
    });
    assert.equal('statusCode' in allowed && allowed.statusCode, 204);
    const untrusted = await send(new URL(`https://localhost:${port}/`), {}, '{}', { allowPrivate: true });
    assert.equal('error' in untrusted && untrusted.error, 'depth_zero_self_signed_cert');
    assert.equal(hits, 1);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('at most 64 KiB of an answer is read: a receiver that streams forever is cut off', async () => {
  let written = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const more = () => {
      while (written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
      if (written < 64 * 1024 * 1024) res.once('drain', more);
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const result = await send(new URL(`http://127.0.0.1:${port}/`), {}, '{}', { allowPrivate: true, timeoutMs: 5000 });
    assert.equal('statusCode' in result && result.statusCode, 200);
    assert.ok(result.durationMs < 4000, 'ended by the cap, not the timeout');
    assert.ok(written < 16 * 1024 * 1024, `the sender stopped reading (${written} bytes written)`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
