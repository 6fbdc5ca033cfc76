/** POST /logout: clears the session cookie. No CSRF check (specification): signing out is harmless. */
import type { Handler } from 'hono';
import { clearCookie, SESSION_COOKIE } from '../http/cookies.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx } from './deps.ts';

export function logout(ctx: Ctx): Handler {
  return function logoutHandler(c) {
    clearCookie(c, SESSION_COOKIE, ctx.config.secure);
    return seeOther(c, '/login');
  };
}
