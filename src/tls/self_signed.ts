/**
 * A self-signed ECDSA P-256 X.509 v3 certificate (RFC 5280) for the control host, built with
 * node:crypto and our DER encoder, and the pin of docs/contract.md section 7 computed from it.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { isIP } from 'node:net';
import * as der from './der.ts';

export interface SelfSignedCertificate {
  certPem: string;
  keyPem: string;
}

const ECDSA_WITH_SHA256 = der.sequence(der.oid('1.2.840.10045.4.3.2'));

export function generateSelfSignedCertificate(opts: {
  commonName: string;
  dnsNames: string[];
  ipAddresses?: string[];
  notBefore: Date;
  days: number;
  /** The key to certify again (a renewal keeps the pin); unset: a new P-256 key. */
  keyPem?: string | undefined;
}): SelfSignedCertificate {
  if (opts.commonName === '') throw new TypeError('generateSelfSignedCertificate: commonName must not be empty');
  if (!(opts.days >= 1)) throw new TypeError('generateSelfSignedCertificate: days must be at least 1');
  const { publicKey, privateKey } = keyPair(opts.keyPem);
  const name = der.sequence(der.set(der.sequence(der.oid('2.5.4.3'), der.utf8String(opts.commonName))));
  const notAfter = new Date(opts.notBefore.getTime() + opts.days * 86_400_000);
  // Section 4.1.2.2: a positive serial of at most 20 octets; 16 random bytes with the top bit cleared.
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x01;
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)),
    der.unsignedInteger(serial),
    ECDSA_WITH_SHA256,
    name,
    der.sequence(der.time(opts.notBefore), der.time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der.explicit(3, der.sequence(...extensions(opts.dnsNames, opts.ipAddresses ?? []))),
  );
  const signature = sign('sha256', tbs, privateKey);
  const cert = der.sequence(tbs, ECDSA_WITH_SHA256, der.bitString(signature));
  const certPem = `-----BEGIN CERTIFICATE-----\n${cert.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

function keyPair(keyPem: string | undefined): { publicKey: KeyObject; privateKey: KeyObject } {
  if (keyPem === undefined) return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const privateKey = createPrivateKey(keyPem);
  // The signature algorithm written in the certificate is ECDSA with SHA-256 on P-256.
  if (privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new TypeError('generateSelfSignedCertificate: keyPem must be a P-256 key');
  return { publicKey: createPublicKey(privateKey), privateKey };
}

function extensions(dnsNames: string[], ips: string[]): Buffer[] {
  const ext = (id: string, critical: boolean, value: Buffer) =>
    der.sequence(der.oid(id), ...(critical ? [der.boolean(true)] : []), der.octetString(value));
  const altNames = [
    ...dnsNames.map((n) => der.implicit(2, Buffer.from(n, 'ascii'))),
    ...ips.map((ip) => der.implicit(7, ipBytes(ip))),
  ];
  const list = [
    // basicConstraints (section 4.2.1.9): an end-entity certificate, CA false (the default, so empty).
    ext('2.5.29.19', true, der.sequence()),
    // keyUsage digitalSignature (section 4.2.1.3): bit 0, so one byte 0x80 with 7 unused bits.
    ext('2.5.29.15', true, Buffer.from([0x03, 0x02, 0x07, 0x80])),
    ext('2.5.29.37', false, der.sequence(der.oid('1.3.6.1.5.5.7.3.1'))),
  ];
  if (altNames.length > 0) list.push(ext('2.5.29.17', false, der.sequence(...altNames)));
  return list;
}

function ipBytes(ip: string): Buffer {
  const family = isIP(ip);
  if (family === 4) return Buffer.from(ip.split('.').map(Number));
  if (family !== 6) throw new TypeError(`generateSelfSignedCertificate: ${ip} is not an IP address`);
  const [head = '', tail = ''] = ip.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = ip.includes('::') ? groups(tail) : [];
  const all = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(all.map((g: string) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

/** `sha256/` + base64 of SHA-256 over the certificate's SubjectPublicKeyInfo DER. */
export function certificatePin(certPem: string): string {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new TypeError('certificatePin: not a PEM certificate');
  }
  return publicKeyPin(cert.publicKey);
}

/** The pin a certificate of this private key will have: the next control key's, before it has one. */
export function keyPin(keyPem: string): string {
  return publicKeyPin(createPublicKey(createPrivateKey(keyPem)));
}

/** A new P-256 private key in PKCS #8 PEM, as generateSelfSignedCertificate makes. */
export function generateKeyPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
}

function publicKeyPin(key: KeyObject): string {
  const spki = key.export({ type: 'spki', format: 'der' });
  return `sha256/${createHash('sha256').update(spki).digest('base64')}`;
}
