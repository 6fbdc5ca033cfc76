/**
 * Enrollment links (docs/contract.md section 7). The interface never builds them itself: the caller
 * supplies a LinkBuilder, because the control server owns the certificate pin and public name.
 */

import type { EnrollToken } from '../domain/enroll_tokens.ts';

/**
 * A freshly minted enrollment token, as handed to the link builder: the stored record and the
 * token itself, which exists only now. What the link holds is docs/contract.md section 7's, no more.
 */
export interface MintedToken extends EnrollToken {
  token: string;
}

export type LinkBuilder = (minted: MintedToken) => string;

/**
 * `paddock://enroll?server=<host[:port] of BaseURL>&pin=<current>&pin=<next>&token=<token>`, and
 * `&max_privacy=<level>` when the token caps its devices below `full` (docs/contract.md section 10), so
 * the device client refuses an upload above it before sending. `pins` are the control key's pins as
 * they are when the link is made, current first (section 16): a rotation changes them while serving.
 */
export function defaultLinkBuilder(opts: { baseUrl: string; pins: () => readonly string[] }): LinkBuilder {
  // URL.host omits the port exactly when it is the scheme's default, as the contract asks.
  const server = queryValue(new URL(opts.baseUrl).host);
  return function buildEnrollmentLink(minted) {
    const pins = opts.pins().map((pin) => `&pin=${queryValue(pin)}`);
    const link = `paddock://enroll?server=${server}${pins.join('')}&token=${queryValue(minted.token)}`;
    return minted.maxPrivacy === 'full' ? link : `${link}&max_privacy=${minted.maxPrivacy}`;
  };
}

/**
 * A query value percent-encoded only where it must be (RFC 3986 section 3.4), so the link reads
 * as the contract writes it: `server=paddock.example:8443&pin=sha256/…=`. A `+` in the pin's
 * base64 is encoded, since form decoding would read it as a space.
 */
function queryValue(value: string): string {
  return encodeURIComponent(value).replace(/%(3A|2F|40|3D)/g, (escape) => decodeURIComponent(escape));
}
