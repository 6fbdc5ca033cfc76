/** Random values and hashes of high-entropy secrets (tokens, credentials). */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `bytes` random bytes as URL-safe base64 without padding (RFC 4648 section 5). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 hex of a secret. Tokens and credentials carry 256 random bits, so a fast hash is
 * enough to make a leaked table useless; argon2id is for low-entropy passwords only.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two strings, whatever their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
