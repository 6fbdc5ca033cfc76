/**
 * POST /logout: clears the session cookie. No CSRF check (specification): signing out is harmless.
 * Its body is not read, but a body above the form limit is refused like any other form's.
 */
import type { Handler } from 'hono';
import { BodyTooLarge, readBody } from '../http/body.ts';
import { clearCookie, SESSION_COOKIE } from '../http/cookies.ts';
import { FORM_LIMIT } from '../http/form.ts';
import { seeOther, textError } from '../http/responses.ts';
import type { Ctx } from './deps.ts';

export function logout(ctx: Ctx): Handler {
  return async function logoutHandler(c) {
    try {
      await readBody(c.req.raw, FORM_LIMIT);
    } catch (err) {
      if (err instanceof BodyTooLarge) return textError(c, 413, 'form too large');
      throw err;
    }
    clearCookie(c, SESSION_COOKIE, ctx.config.secure);
    return seeOther(c, '/login');
  };
}
