/**
 * POST /logout: ends the session (recorded in the store, so a copy of the cookie is refused too)
 * and clears its cookie. No CSRF check (specification): signing out is harmless.
 * Its body is read and dropped, through the one door (http/body.ts): a body above the form limit is
 * refused like any other form's, and one sent too slowly is cut off with 408.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { BodyError, readBody } from '../http/body.ts';
import { clearCookie, SESSION_COOKIE } from '../http/cookies.ts';
import { FORM_LIMIT } from '../http/form.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx } from '../context/deps.ts';
import { cookieSession } from '../context/session_cookie.ts';
import { EVENTS } from '../events/catalogue.ts';

export function logout(ctx: Ctx): Handler {
  return async function logoutHandler(c) {
    try {
      await readBody(c.req.raw, { limit: FORM_LIMIT });
    } catch (err) {
      const code = err instanceof BodyError ? err.code : undefined;
      if (code === 'too-large') return fail(c, 'formTooLarge');
      // The request never arrived whole: answered as any stalled form is (guard.ts), nothing done.
      if (code === 'too-slow' || code === 'cut-short') return fail(c, 'requestTimeout');
      // A body whose connection was reset: it asked to sign out, and signing out needs nothing from it.
    }
    // Signing out ends the session itself, not only this browser's copy of its cookie.
    const session = cookieSession(ctx, c);
    if (session) {
      await ctx.store.endSession(session.id, ctx.clock.now()).catch((err: unknown) => {
        ctx.logger.emit(EVENTS.serverError, { error: `sign-out not recorded: ${(err as Error).message}` });
      });
    }
    clearCookie(c, SESSION_COOKIE, ctx.config.secure);
    return seeOther(c, '/login');
  };
}
