/**
 * GET /admin/callback: proves the callback belongs to the browser that started the flow (state
 * cookie equals `state`), exchanges the code, verifies the identity token, and signs the account in.
 * The state cookie is cleared whenever the callback is reached.
 */
import type { Context, Handler } from 'hono';
import type { JWTPayload } from 'jose';
import { constantTimeEqual } from '../crypto/random.ts';
import { clientAddress } from '../http/client_address.ts';
import { clearCookie, OIDC_COOKIE, readCookie, SESSION_COOKIE, setCookie } from '../http/cookies.ts';
import { seeOther, textError } from '../http/responses.ts';
import type { Ctx } from './deps.ts';

const STATE_COOKIE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43,128})$/;

export function authCallback(ctx: Ctx): Handler {
  const { config, logger } = ctx;
  return async function authCallbackHandler(c) {
    const cookie = readCookie(c, OIDC_COOKIE);
    clearCookie(c, OIDC_COOKIE, config.secure);
    if (!ctx.oidc || !ctx.oidcAvailable) return textError(c, 501, 'no identity provider configured');
    if (cookie === undefined)
      return textError(c, 400, 'sign-in did not start here: start it again from the sign-in page');

    const [state, verifier] = STATE_COOKIE.exec(cookie)?.slice(1) ?? [];
    const states = c.req.queries('state') ?? [];
    if (!state || !verifier || states.length !== 1 || !constantTimeEqual(states[0] ?? '', state)) {
      return textError(c, 400, 'state mismatch: start the sign-in again');
    }
    const code = c.req.query('code');
    if (!code) return textError(c, 400, `no code returned by the identity provider: ${c.req.query('error') ?? ''}`);

    const client = clientAddress(c);
    let idToken: string;
    try {
      idToken = await ctx.oidc.exchange({ code, redirectUri: ctx.redirectUri, codeVerifier: verifier });
    } catch (err) {
      logger.log('warn', 'login.oidc.exchange_failed', { client, error: (err as Error).message });
      return textError(c, 502, 'could not complete sign-in with the identity provider');
    }
    let claims: JWTPayload & { sub: string };
    try {
      claims = await ctx.oidc.verify(idToken);
    } catch (err) {
      logger.log('warn', 'login.oidc.token_rejected', { client, error: (err as Error).message });
      return textError(c, 403, 'identity token not accepted');
    }
    return signIn(ctx, c, claims, client);
  };
}

async function signIn(ctx: Ctx, c: Context, claims: JWTPayload & { sub: string }, client: string) {
  const { config } = ctx;
  const display =
    [claims.name, claims.preferred_username, claims.email, claims.sub].find(
      (v): v is string => typeof v === 'string' && v !== '',
    ) ?? claims.sub;
  const groups = claims[config.groupsClaim];
  const memberOf = Array.isArray(groups) ? groups : typeof groups === 'string' ? [groups] : [];
  const admin = config.adminGroup !== undefined && memberOf.includes(config.adminGroup);
  const now = ctx.clock.now();
  const session = ctx.sessions.newSession(
    { subject: `oidc:${claims.sub}`, display: display.slice(0, 256), admin },
    now,
  );
  await ctx.store.recordSignIn({ subject: session.subject, display: session.display, lastSignInAt: now });
  setCookie(c, SESSION_COOKIE, ctx.sessions.encode(session), { secure: config.secure });
  ctx.logger.log('info', 'login.oidc.succeeded', { account: session.subject, method: 'oidc', admin, client });
  return seeOther(c, '/');
}
