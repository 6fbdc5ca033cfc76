/**
 * GET /admin/callback: proves the callback belongs to the browser that started the flow (state
 * cookie equals `state`) and to a sign-in this server started in the last 600 s (the state's MAC
 * and issue time) that has not come back before (recorded in the store), exchanges the code,
 * verifies the identity token, and signs the account in. The state cookie is cleared whenever the
 * callback is reached.
 */
import { fail } from '../http/failures.ts';
import type { Context, Handler } from 'hono';
import type { JWTPayload } from 'jose';
import { constantTimeEqual } from '../crypto/random.ts';
import { clientAddress } from '../http/client_address.ts';
import { clearCookie, OIDC_COOKIE, readCookie } from '../http/cookies.ts';
import { oidcSubject } from '../actions/provider_logout.ts';
import { OIDC_IDENTIFIER } from '../oidc/verify.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx } from '../context/deps.ts';
import { startSession } from './sign_in.ts';
import { linkAtSignIn, scimUserAtSignIn } from './scim_sign_in.ts';
import { signInGroups } from './sign_in_groups.ts';
import { EVENTS } from '../events/catalogue.ts';

const STATE_COOKIE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43,128})$/;

export function authCallback(ctx: Ctx): Handler {
  const { config, logger } = ctx;
  return async function authCallbackHandler(c) {
    const cookie = readCookie(c, OIDC_COOKIE);
    clearCookie(c, OIDC_COOKIE, config.secure);
    if (!ctx.oidc || !ctx.oidcAvailable) return fail(c, 'oidcUnavailable');
    if (cookie === undefined) return fail(c, 'signInNotStartedHere');

    const [state, verifier] = STATE_COOKIE.exec(cookie)?.slice(1) ?? [];
    const states = c.req.queries('state') ?? [];
    if (!state || !verifier || states.length !== 1 || !constantTimeEqual(states[0] ?? '', state)) {
      return fail(c, 'stateMismatch');
    }
    // docs/contract.md section 23: the token endpoint is called only for a state issued here in the
    // last 600 s and not seen back yet. A forged callback (any cookie and state its sender likes)
    // would otherwise post Paddock's client secret to the provider once each. The MAC and the age
    // are checked first, so only a genuine state is ever written to the store; a conflict there
    // means it came back already (a replay, here or on another instance).
    const keepUntil = ctx.oidcStates.verify(state, ctx.clock.now());
    if (keepUntil === undefined || !(await ctx.store.oidcStateCameBack(state, keepUntil))) {
      return fail(c, 'stateMismatch');
    }
    const code = c.req.query('code');
    if (!code) return fail(c, 'noCode', c.req.query('error') ?? '');

    const client = clientAddress(c);
    let idToken: string;
    try {
      idToken = await ctx.oidc.exchange({ code, redirectUri: ctx.redirectUri, codeVerifier: verifier });
    } catch (err) {
      await logger.emit(EVENTS.loginOidcExchangeFailed, { client, error: (err as Error).message });
      return fail(c, 'exchangeFailed');
    }
    let claims: JWTPayload & { sub: string };
    try {
      claims = await ctx.oidc.verify(idToken);
    } catch (err) {
      await logger.emit(EVENTS.loginOidcTokenRejected, { client, error: (err as Error).message });
      return fail(c, 'idTokenRejected');
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
  const subject = oidcSubject(claims.sub);
  // docs/contract.md section 20: the SCIM user this sign-in is, refused when inactive or required and absent.
  const scimUser = await scimUserAtSignIn(ctx, c, subject, claims, client);
  if (scimUser instanceof Response) return scimUser;
  const session = await startSession(
    ctx,
    c,
    { subject, display: display.slice(0, 256), admin },
    'oidc',
    // Kept with the session for back-channel logout (docs/contract.md section 17).
    typeof claims.sid === 'string' && OIDC_IDENTIFIER.test(claims.sid) ? claims.sid : undefined,
  );
  if (session instanceof Response) return session;
  if (scimUser) await linkAtSignIn(ctx, scimUser, session.subject, client);
  await signInGroups(ctx, session.subject, claims, client);
  await ctx.logger.emit(EVENTS.loginOidcSucceeded, { account: session.subject, method: 'oidc', admin, client });
  return seeOther(c, '/');
}
