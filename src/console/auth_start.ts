/** GET /auth/start: the authorization request of the specification, with state and PKCE (RFC 7636, S256). */
import { fail } from '../http/failures.ts';
import { createHash } from 'node:crypto';
import type { Handler } from 'hono';
import { randomToken } from '../crypto/random.ts';
import { OIDC_COOKIE, setCookie } from '../http/cookies.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx } from '../context/deps.ts';

export const OIDC_COOKIE_MAX_AGE = 600;

export function authStart(ctx: Ctx): Handler {
  return async function authStartHandler(c) {
    if (!ctx.oidc || !ctx.oidcAvailable) return fail(c, 'oidcUnavailable');
    let endpoint: URL;
    try {
      endpoint = new URL((await ctx.oidc.discover()).authorizationEndpoint);
    } catch (err) {
      return fail(c, 'providerUnreachable', (err as Error).message);
    }
    const state = randomToken(32);
    const verifier = randomToken(32);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const q = endpoint.searchParams;
    q.set('response_type', 'code');
    q.set('client_id', ctx.config.clientId);
    q.set('redirect_uri', ctx.redirectUri);
    q.set('scope', 'openid profile email');
    q.set('state', state);
    q.set('code_challenge', challenge);
    q.set('code_challenge_method', 'S256');
    setCookie(c, OIDC_COOKIE, `${state}.${verifier}`, { secure: ctx.config.secure, maxAge: OIDC_COOKIE_MAX_AGE });
    return seeOther(c, endpoint.href);
  };
}
