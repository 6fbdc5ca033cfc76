/**
 * The control key's pins (docs/contract.md sections 7 and 16): what a pin looks like, and the digest
 * of a pin set that every control answer carries, so that a device learns when its set is stale.
 */
import { createHash } from 'node:crypto';

/** `sha256/` + base64 of SHA-256 over a SubjectPublicKeyInfo DER. */
export const PIN = /^sha256\/[A-Za-z0-9+/]{43}=$/;

/** The header of every control answer: the digest of the server's pin set. */
export const PINS_HEADER = 'Paddock-Pins';

/**
 * At most this many pins in a set: the server's is the current key and the next; a link with more
 * is refused as malformed.
 */
export const MAX_PINS = 2;

/** The first 16 hex digits of SHA-256 over the pins joined by `,`, current first (section 16). */
export function pinsDigest(pins: readonly string[]): string {
  return createHash('sha256').update(pins.join(',')).digest('hex').slice(0, 16);
}
