// The generated control certificate (issue 23): at most 398 days, reissued with the same key (so
// the same pin) before it expires and when the control host changes, and kept otherwise.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { loadControlIdentity, RENEW_DAYS_BEFORE } from '../../src/tls/control_identity.ts';
import { generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';

const DAY = 86_400_000;
const start = Date.parse('2026-03-01T00:00:00Z');
const validity = (pem: string) => {
  const cert = new X509Certificate(pem);
  return { from: Date.parse(cert.validFrom), to: Date.parse(cert.validTo), names: cert.subjectAltName };
};

test('generated for at most 398 days, kept while good, renewed with the same key before it expires', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const first = await loadControlIdentity(store, '127.0.0.1', start);
    const { from, to, names } = validity(first.certPem);
    assert.ok(to - from <= 398 * DAY, `valid for ${(to - from) / DAY} days`);
    assert.ok(from <= start && to > start + 300 * DAY);
    assert.equal(names, 'IP Address:127.0.0.1');

    const later = await loadControlIdentity(store, '127.0.0.1', to - RENEW_DAYS_BEFORE * DAY - DAY);
    assert.equal(later.certPem, first.certPem, 'not reissued while more than the renewal margin is left');

    const due = to - RENEW_DAYS_BEFORE * DAY + DAY;
    const renewed = await loadControlIdentity(store, '127.0.0.1', due);
    assert.notEqual(renewed.certPem, first.certPem);
    assert.equal(renewed.keyPem, first.keyPem);
    assert.equal(renewed.pin, first.pin, 'devices pin the key: the pin holds');
    assert.ok(validity(renewed.certPem).to > due + 300 * DAY);
    // Every instance on the store then serves the renewed one.
    assert.equal((await loadControlIdentity(store, '127.0.0.1', due + DAY)).certPem, renewed.certPem);
  } finally {
    await store.close();
  }
});

test('a store first served plain gets a certificate naming the control host once one is set, same key', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const plain = await loadControlIdentity(store, '127.0.0.1', start);
    const named = await loadControlIdentity(store, 'control.example', start + DAY);
    assert.equal(validity(named.certPem).names, 'DNS:control.example');
    assert.equal(named.pin, plain.pin);
    assert.equal(named.keyPem, plain.keyPem);
    const v6 = await loadControlIdentity(store, '[::1]', start + 2 * DAY);
    assert.equal(validity(v6.certPem).names, 'IP Address:0:0:0:0:0:0:0:1');
    assert.equal(v6.pin, plain.pin);
  } finally {
    await store.close();
  }
});

test('a configured control certificate is served as it is: never reissued', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const configured = generateSelfSignedCertificate({
      commonName: 'other.example',
      dnsNames: ['other.example'],
      notBefore: new Date(start),
      days: 10,
    });
    const loaded = await loadControlIdentity(store, 'control.example', start + 9 * DAY, configured);
    assert.equal(loaded.certPem, configured.certPem);
    assert.equal(await store.getSetting('control_tls'), undefined);
  } finally {
    await store.close();
  }
});
