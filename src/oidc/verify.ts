/**
 * Identity token validation, OpenID Connect Core 1.0 section 3.1.3.7, with `jose`: signature
 * under the provider's key set with an algorithm from the discovery allow-list, then iss, aud,
 * azp, exp, iat and sub. We never send a nonce, so a token that carries one was minted for
 * another request (section 3.1.2.1) and is rejected.
 */
import { type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';

export interface VerifyOptions {
  issuer: string;
  clientId: string;
  algorithms: string[];
  keys: JWTVerifyGetKey;
  now: number;
}

/** `sub` (Core section 2), and `sid` and `jti` likewise: 1 to 255 printable ASCII characters. */
export const OIDC_IDENTIFIER = /^[\x20-\x7e]{1,255}$/;

/** Clock skew tolerated between us and the provider. */
const CLOCK_TOLERANCE_S = 30;
/** Tokens are used right after issue; an old one is a replay. */
const MAX_TOKEN_AGE_S = 600;

export async function verifyIdToken(token: string, opts: VerifyOptions): Promise<JWTPayload & { sub: string }> {
  const { payload } = await jwtVerify(token, opts.keys, {
    issuer: opts.issuer,
    audience: opts.clientId,
    algorithms: opts.algorithms,
    requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub'],
    currentDate: new Date(opts.now),
    clockTolerance: CLOCK_TOLERANCE_S,
    maxTokenAge: MAX_TOKEN_AGE_S,
  });
  // Section 3.1.3.7 item 3: a token that also names audiences this client does not trust is
  // rejected, and this client trusts none but itself.
  if (Array.isArray(payload.aud) && payload.aud.some((aud) => aud !== opts.clientId)) {
    throw new Error('token names other audiences than this client');
  }
  if (payload.azp !== undefined && payload.azp !== opts.clientId) throw new Error('azp is not this client');
  if (payload.nonce !== undefined) throw new Error('unexpected nonce');
  // Section 2: sub is at most 255 ASCII characters (a longer one would also not fit a cookie).
  if (typeof payload.sub !== 'string' || !OIDC_IDENTIFIER.test(payload.sub)) {
    throw new Error('sub is not 1 to 255 printable ASCII characters');
  }
  return payload as JWTPayload & { sub: string };
}
