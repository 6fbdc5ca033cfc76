/** Certificate and key files named by configuration: read, parsed, and checked to belong together. */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './parse.ts';

export interface PemPair {
  certPem: string;
  keyPem: string;
}

function readPem(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, { cause: err });
  }
}

export function readCertificate(path: string): string {
  const pem = readPem(path);
  try {
    new X509Certificate(pem);
  } catch {
    throw new Error(`${path} is not a PEM certificate`);
  }
  return pem;
}

export function readPrivateKey(path: string): string {
  const pem = readPem(path);
  try {
    createPrivateKey(pem);
  } catch {
    throw new Error(`${path} is not a PEM private key`);
  }
  return pem;
}

/** A CA file: one or more PEM certificates (a bundle), each readable; returned as read. */
export function readCertificates(path: string): string {
  const pem = readPem(path);
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${path} holds no PEM certificate`);
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch {
      throw new Error(`${path}: certificate ${i + 1} is not a valid PEM certificate`);
    }
  });
  return pem;
}

/** Both or neither; when both, the key must be the certificate's. */
export function pemPair(
  cert: string | undefined,
  key: string | undefined,
  names: { cert: string; key: string },
): PemPair | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined) throw new ConfigError(names.cert, `must be set together with ${names.key}`);
  if (key === undefined) throw new ConfigError(names.key, `must be set together with ${names.cert}`);
  if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) {
    throw new ConfigError(names.key, `is not the key of the certificate in ${names.cert}`);
  }
  return { certPem: cert, keyPem: key };
}
