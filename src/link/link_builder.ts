/**
 * Enrollment links (CONTRACT section 7). The interface never builds them itself: the caller
 * supplies a LinkBuilder, because the control server owns the certificate pin and public name.
 */

/** A freshly minted enrollment token, as handed to the link builder. */
export interface MintedToken {
  token: string;
  owner: string;
  expiresAt: number;
}

export type LinkBuilder = (minted: MintedToken) => string;

/** `paddock://enroll?server=<host[:port] of BaseURL>&pin=<pin>&token=<token>`. */
export function defaultLinkBuilder(opts: { baseUrl: string; pin: string }): LinkBuilder {
  // URL.host omits the port exactly when it is the scheme's default, as the contract asks.
  const server = new URL(opts.baseUrl).host;
  return function buildEnrollmentLink(minted) {
    const query = new URLSearchParams({ server, pin: opts.pin, token: minted.token });
    return `paddock://enroll?${query.toString()}`;
  };
}
