/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) with the parameters every
 * authenticator app reads from an otpauth URI: HMAC-SHA-1, 6 digits, 30-second steps.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_S = 30;
/** RFC 4226 section 4 asks for at least 128 bits of shared secret and recommends 160. */
const SECRET_BYTES = 20;

/** A fresh shared secret. */
export function newTotpSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

/** The time step of `nowMs` (RFC 6238 section 4: T = floor((now - T0) / X), T0 = 0). */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_S);
}

/** The code for one time step (RFC 4226 section 5.3, dynamic truncation). */
export function hotp(secret: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

/**
 * The step among `now`'s and one either side (RFC 6238 section 5.2's allowed network delay) whose
 * code is `code`, or undefined. All three are computed and compared in constant time, so the time
 * taken says nothing about which step, if any, matched.
 */
export function matchingStep(secret: Buffer, code: string, nowMs: number): number | undefined {
  const given = Buffer.from(code.padEnd(TOTP_DIGITS, ' ').slice(0, TOTP_DIGITS));
  const now = totpStep(nowMs);
  let found: number | undefined;
  for (const step of [now - 1, now, now + 1]) {
    const equal = timingSafeEqual(Buffer.from(hotp(secret, step)), given);
    if (equal && code.length === TOTP_DIGITS && found === undefined) found = step;
  }
  return found;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 section 6 base32 without padding, as authenticator apps take a secret. */
export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The Key URI an authenticator app scans (Google Authenticator's "Key Uri Format"): the issuer
 * both as the label's prefix and as a parameter, and every parameter spelled out though they are
 * the defaults, so an app that assumes other defaults still computes the same codes.
 */
export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret: base32(secret),
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_S),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
