import assert from 'node:assert/strict';
import { createHash, createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import tls from 'node:tls';
import { certificatePin, generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';

const notBefore = new Date('2026-11-01T10:20:30Z');
const make = (days = 30) =>
  generateSelfSignedCertificate({
    commonName: 'control.example',
    dnsNames: ['control.example'],
    ipAddresses: ['127.0.0.1'],
    notBefore,
    days,
  });

test('the certificate parses, is self-signed, names its host and matches its key', () => {
  const { certPem, keyPem } = make();
  const cert = new X509Certificate(certPem);
  assert.equal(cert.subject, 'CN=control.example');
  assert.equal(cert.issuer, 'CN=control.example');
  assert.equal(cert.subjectAltName, 'DNS:control.example, IP Address:127.0.0.1');
  assert.equal(cert.verify(cert.publicKey), true);
  assert.equal(cert.checkPrivateKey(createPrivateKey(keyPem)), true);
  assert.equal(new Date(cert.validFrom).toISOString(), '2026-11-01T10:20:30.000Z');
  assert.equal(new Date(cert.validTo).toISOString(), '2026-12-01T10:20:30.000Z');
  assert.equal(cert.ca, false);
});

test('a validity past 2049 is written as GeneralizedTime and still parses', () => {
  const cert = new X509Certificate(make(9200).certPem);
  assert.equal(new Date(cert.validTo).toISOString(), new Date(notBefore.getTime() + 9200 * 86_400_000).toISOString());
  assert.ok(new Date(cert.validTo).getUTCFullYear() >= 2050);
});

test('the pin is sha256/ + base64 of SHA-256 over the SubjectPublicKeyInfo DER; serials and pins differ', () => {
  const a = make();
  const b = make();
  const spki = new X509Certificate(a.certPem).publicKey.export({ type: 'spki', format: 'der' });
  assert.equal(certificatePin(a.certPem), `sha256/${createHash('sha256').update(spki).digest('base64')}`);
  assert.match(certificatePin(a.certPem), /^sha256\/[A-Za-z0-9+/]{43}=$/);
  assert.notEqual(certificatePin(a.certPem), certificatePin(b.certPem));
  assert.notEqual(new X509Certificate(a.certPem).serialNumber, new X509Certificate(b.certPem).serialNumber);
  assert.throws(() => certificatePin('not a certificate'), TypeError);
});

test('a TLS server with the certificate completes a handshake with a client that trusts it, and only that one', async () => {
  const { certPem, keyPem } = make();
  const server = tls.createServer({ cert: certPem, key: keyPem }, (socket) => socket.end('hi'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  try {
    const trusted = tls.connect({ host: '127.0.0.1', port, ca: certPem, servername: 'control.example' });
    await once(trusted, 'secureConnect');
    assert.equal(trusted.authorized, true);
    trusted.destroy();
    const untrusted = tls.connect({ host: '127.0.0.1', port, servername: 'control.example' });
    const [err] = (await once(untrusted, 'error')) as [NodeJS.ErrnoException];
    assert.equal(err.code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  } finally {
    server.close();
  }
});

test('bad input is a TypeError', () => {
  assert.throws(() => generateSelfSignedCertificate({ commonName: '', dnsNames: [], notBefore, days: 1 }), TypeError);
  assert.throws(() => generateSelfSignedCertificate({ commonName: 'x', dnsNames: [], notBefore, days: 0 }), TypeError);
  assert.throws(
    () =>
      generateSelfSignedCertificate({ commonName: 'x', dnsNames: [], ipAddresses: ['300.1.1.1'], notBefore, days: 1 }),
    TypeError,
  );
});

test('a certificate for a given key keeps that key, so its pin; only P-256 keys are taken', () => {
  const first = make();
  const again = generateSelfSignedCertificate({
    commonName: 'control.example',
    dnsNames: ['control.example'],
    notBefore,
    days: 30,
    keyPem: first.keyPem,
  });
  assert.equal(again.keyPem, first.keyPem);
  assert.equal(certificatePin(again.certPem), certificatePin(first.certPem));
  assert.equal(new X509Certificate(again.certPem).verify(new X509Certificate(first.certPem).publicKey), true);
  const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  });
  assert.throws(
    () => generateSelfSignedCertificate({ commonName: 'x', dnsNames: [], notBefore, days: 1, keyPem: String(p384) }),
    /P-256/,
  );
});
