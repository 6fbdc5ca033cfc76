/**
 * POST /oidc/backchannel-logout (docs/contract.md section 17; OpenID Connect Back-Channel Logout
 * 1.0 section 2.5): the provider posts a signed logout token, with no session and no CSRF token;
 * the token itself is the credential. A valid one, seen for the first time, ends the sessions it
 * names and is answered 200; any other is answered 400 with the error JSON of section 2.8, and
 * nothing ends. Both answers are `Cache-Control: no-store`.
 */
import type { Context, Handler } from 'hono';
import { endSessionsByProvider } from '../actions/provider_logout.ts';
import type { Ctx } from '../context/deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import { readForm } from '../http/form.ts';
import { LogoutTokenRejected } from '../oidc/logout_token.ts';

export function backchannelLogout(ctx: Ctx): Handler {
  return async function backchannelLogoutHandler(c) {
    if (!ctx.oidc || !ctx.oidcAvailable) return fail(c, 'oidcUnavailable');
    const form = await readForm(c.req.raw);
    if (!form.ok) {
      if (form.reason === 'too-large') return fail(c, 'formTooLarge');
      if (form.reason === 'too-slow') return fail(c, 'requestTimeout');
      return refuse(ctx, c, 'the body must be a form with logout_token');
    }
    const token = form.fields.get('logout_token');
    if (token === undefined || token === '') return refuse(ctx, c, 'logout_token is missing');
    let request;
    try {
      request = await ctx.oidc.verifyLogoutToken(token);
    } catch (err) {
      if (!(err instanceof LogoutTokenRejected)) throw err;
      return refuse(ctx, c, err.message);
    }
    // Every check passed: the jti is noted last, so a forged token cannot use up a real one's.
    if (!(await ctx.store.noteLogoutToken(request.jti, request.expiresAt, ctx.clock.now()))) {
      return refuse(ctx, c, 'jti was seen before: a replayed logout token');
    }
    await endSessionsByProvider(ctx, request);
    c.header('Cache-Control', 'no-store');
    return c.body(null, 200);
  };
}

async function refuse(ctx: Ctx, c: Context, description: string): Promise<Response> {
  await ctx.logger.emit(EVENTS.oidcLogoutTokenRejected, { client: clientAddress(c), error: description });
  c.header('Cache-Control', 'no-store');
  return c.json({ error: 'invalid_request', error_description: description }, 400);
}
