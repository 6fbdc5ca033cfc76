/**
 * GET /auth/start: the authorization request of the specification, with state and PKCE (RFC 7636,
 * S256). The state carries its issue time and a MAC under the session keys (session/oidc_state.ts):
 * the callback calls the token endpoint only for a state issued here (docs/contract.md section 23),
 * and this route, open to anyone, writes nothing.
 */
import { fail } from '../http/failures.ts';
import { createHash } from 'node:crypto';
import type { Handler } from 'hono';
import { randomToken } from '../crypto/random.ts';
import { OIDC_COOKIE, setCookie } from '../http/cookies.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx } from '../context/deps.ts';
import { OIDC_STATE_LIFE_MS } from '../session/oidc_state.ts';

/** Seconds a sign-in may take at the provider: the state cookie's life, and the state's (OIDC_STATE_LIFE_MS). */
export const OIDC_COOKIE_MAX_AGE = OIDC_STATE_LIFE_MS / 1000;

export function authStart(ctx: Ctx): Handler {
  return async function authStartHandler(c) {
    if (!ctx.oidc || !ctx.oidcAvailable) return fail(c, 'oidcUnavailable');
    let endpoint: URL;
    try {
      endpoint = new URL((await ctx.oidc.discover()).authorizationEndpoint);
    } catch (err) {
      return fail(c, 'providerUnreachable', (err as Error).message);
    }
    const state = ctx.oidcStates.issue(ctx.clock.now());
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
