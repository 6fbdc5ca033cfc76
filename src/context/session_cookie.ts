/** The console's session, read from its cookie: by the guard, by sign-out and by the API's document. */
import type { Context } from 'hono';
import { readCookie, SESSION_COOKIE } from '../http/cookies.ts';
import type { Session } from '../session/session.ts';
import type { Ctx } from './deps.ts';

/** The session its cookie carries, if the cookie parses, verifies and has not expired. */
export function cookieSession(ctx: Ctx, c: Context): Session | undefined {
  const value = readCookie(c, SESSION_COOKIE);
  return value === undefined ? undefined : ctx.sessions.decode(value, ctx.clock.now());
}
