/**
 * Sealing a server-side secret at rest: AES-256-GCM under a key derived with HKDF-SHA-256 (RFC
 * 5869) from a root key, each use with its own `info` label so one root key yields independent keys.
 * The additional data binds a sealed value to where it belongs (an account, a session), so a
 * sealed value copied elsewhere does not open.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** A 32-byte key for `label`, derived from `root` (no salt: the root key is uniformly random). */
export function deriveKey(root: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), label, 32));
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `iv | ciphertext | tag` as URL-safe base64; a fresh 96-bit IV per seal (NIST SP 800-38D). */
export function seal(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/**
 * The plaintext, or undefined when `sealed` is malformed, was tampered with, or belongs elsewhere.
 * `maxChars` bounds what is decoded: 1,024 for what arrives in a form, more for the store's settings.
 */
export function open(key: Buffer, sealed: string, aad: string, maxChars = 1024): Buffer | undefined {
  if (sealed.length > maxChars || !/^[A-Za-z0-9_-]+$/.test(sealed)) return undefined;
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** HMAC-SHA-256 hex of `message` under `key`: a keyed hash of a high-entropy secret. */
export function keyedHash(key: Buffer, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}
