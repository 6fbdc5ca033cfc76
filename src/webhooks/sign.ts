/**
 * Standard Webhooks signatures (docs/contract.md section 13): `v1,` + base64 of HMAC-SHA256 over
 * `id.timestamp.body`, keyed with the secret's bytes (base64 after `whsec_`). Several secrets give
 * several signatures, space-separated (a rotation's 24 hours).
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a secret: the bytes after `whsec_`, as a KeyObject (made once, used for many messages). */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'));
}

export function signature(keys: readonly KeyObject[], id: string, timestamp: number, body: string): string {
  return keys
    .map((key) => `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}
