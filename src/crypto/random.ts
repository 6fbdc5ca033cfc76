/** Random values and hashes of high-entropy secrets (tokens, credentials). */
import { createHash, hash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

/** `bytes` random bytes as URL-safe base64 without padding (RFC 4648 section 5). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 hex of a secret. Tokens and credentials carry 256 random bits, so a fast hash is
 * enough to make a leaked table useless; argon2id is for low-entropy passwords only.
 */
export function secretHash(secret: string): string {
  return sha256Hex(secret);
}

/** SHA-256 hex of a string (as UTF-8) or bytes, in one call (no Hash object). */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

const pool = Buffer.alloc(4096);
let taken = pool.length;

/**
 * `bytes` random bytes in hex, cut from a pool the CSPRNG refills 4 KiB at a time, as Node's
 * randomUUID does: a call of randomBytes for a few bytes costs a trip into OpenSSL each time.
 * For identifiers that must not collide (message ids); secrets come from randomToken.
 */
export function randomHex(bytes: number): string {
  if (bytes > pool.length) return randomBytes(bytes).toString('hex');
  if (taken + bytes > pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const hex = pool.toString('hex', taken, taken + bytes);
  taken += bytes;
  return hex;
}

/** Constant-time equality of two strings, whatever their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
