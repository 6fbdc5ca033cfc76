/**
 * Secrets kept so they can still be used (webhook signing secrets): AES-256-GCM under a key of
 * 32 bytes, `v1.` + base64url(iv ‖ tag ‖ ciphertext). A row read alone (a copied table, a query
 * in a log) reveals nothing without the key (docs/decisions.md, issue 26).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The plain secret; throws when the value was not sealed under this key. */
export function unseal(key: Buffer, sealed: string): string {
  if (!sealed.startsWith('v1.')) throw new Error('not a sealed value');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
