/**
 * Logout token validation, OpenID Connect Back-Channel Logout 1.0 section 2.6, with `jose`
 * (docs/contract.md section 17): signed by a key of the provider's key set with an algorithm it
 * allows (never `none`, never encrypted), `iss` the issuer, `aud` holding the client id, `iat`
 * present and not in the future, `exp` present and not passed, a `jti`, the back-channel logout
 * event, `sub` or `sid` or both, no `nonce`, and a `typ` header of `logout+jwt` when one is given.
 * Whether its `jti` was seen before is the store's to say (shared by every instance).
 */
import { decodeProtectedHeader, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { OIDC_IDENTIFIER } from './verify.ts';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface LogoutTokenOptions {
  issuer: string;
  clientId: string;
  algorithms: string[];
  keys: JWTVerifyGetKey;
  now: number;
}

/** What a valid logout token asks: end the sign-ins with `sid`, or every one of `sub`. */
export interface LogoutRequest {
  sub?: string;
  sid?: string;
  jti: string;
  /** Milliseconds since the epoch: how long its jti must be remembered. */
  expiresAt: number;
}

/** Why a logout token was refused: the text of the 400 answer's `error_description`. */
export class LogoutTokenRejected extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LogoutTokenRejected';
  }
}

const CLOCK_TOLERANCE_S = 30;
/** A token valid for longer than this is refused: its jti would have to be kept as long (section 2.4 suggests minutes). */
const MAX_LIFETIME_S = 24 * 3600;

export async function verifyLogoutToken(token: string, opts: LogoutTokenOptions): Promise<LogoutRequest> {
  let typ: unknown;
  try {
    typ = decodeProtectedHeader(token).typ;
  } catch (err) {
    throw new LogoutTokenRejected('not a signed JWT', { cause: err });
  }
  // Explicit typing (section 2.4): compared without its optional "application/" prefix, any case (RFC 8725 section 3.11).
  if (
    typ !== undefined &&
    (typeof typ !== 'string' || typ.toLowerCase().replace(/^application\//, '') !== 'logout+jwt')
  ) {
    throw new LogoutTokenRejected('typ is not logout+jwt');
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, opts.keys, {
      issuer: opts.issuer,
      audience: opts.clientId,
      algorithms: opts.algorithms,
      requiredClaims: ['iss', 'aud', 'iat', 'exp', 'jti', 'events'],
      currentDate: new Date(opts.now),
      clockTolerance: CLOCK_TOLERANCE_S,
    }));
  } catch (err) {
    throw new LogoutTokenRejected(`verification failed: ${(err as Error).message}`, { cause: err });
  }
  const nowS = opts.now / 1000;
  const { iat, exp, jti, sub, sid, events, nonce } = payload;
  if (typeof iat !== 'number' || iat > nowS + CLOCK_TOLERANCE_S) throw new LogoutTokenRejected('iat is in the future');
  if (typeof exp !== 'number' || exp - iat > MAX_LIFETIME_S) {
    throw new LogoutTokenRejected('exp is more than a day after iat');
  }
  if (typeof jti !== 'string' || !OIDC_IDENTIFIER.test(jti))
    throw new LogoutTokenRejected('jti is missing or malformed');
  const event = (events as Record<string, unknown> | null | undefined)?.[BACKCHANNEL_LOGOUT_EVENT];
  if (typeof events !== 'object' || events === null || Array.isArray(events) || !isObject(event)) {
    throw new LogoutTokenRejected(`events has no member ${BACKCHANNEL_LOGOUT_EVENT}`);
  }
  // Section 2.4: a nonce is prohibited, so that a logout token is never taken for an ID token.
  if (nonce !== undefined) throw new LogoutTokenRejected('a logout token carries no nonce');
  if (sub === undefined && sid === undefined) throw new LogoutTokenRejected('neither sub nor sid');
  if (sub !== undefined && (typeof sub !== 'string' || !OIDC_IDENTIFIER.test(sub))) {
    throw new LogoutTokenRejected('sub is not 1 to 255 printable ASCII characters');
  }
  if (sid !== undefined && (typeof sid !== 'string' || !OIDC_IDENTIFIER.test(sid))) {
    throw new LogoutTokenRejected('sid is not 1 to 255 printable ASCII characters');
  }
  return {
    ...(sub === undefined ? {} : { sub }),
    ...(sid === undefined ? {} : { sid }),
    jti,
    expiresAt: exp * 1000,
  };
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
