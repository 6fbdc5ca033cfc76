/**
 * The credential a rotation issues (docs/contract.md section 16): HMAC-SHA-256 keyed by the
 * rotation's random salt over the credential it replaces. The store keeps the salt and hashes only,
 * so the new credential can be given again to whoever presents the old one during the overlap (a
 * racing or repeated rotation gets the same answer) and to nobody else: the salt alone, or the old
 * credential alone, makes nothing.
 */
import { createHmac } from 'node:crypto';
import { randomToken } from './random.ts';

/** A rotation's salt: 256 random bits, URL-safe base64. */
export function rotationSalt(): string {
  return randomToken(32);
}

/** The new credential of a rotation with `salt` of the credential `replaced`: 256 bits, as enrollment's. */
export function rotatedCredential(salt: string, replaced: string): string {
  return createHmac('sha256', Buffer.from(salt, 'base64url'))
    .update('paddock device credential rotation\0')
    .update(replaced)
    .digest('base64url');
}
