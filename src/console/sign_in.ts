/**
 * What every successful sign-in ends with, local or OIDC: a new session (a fresh random id, so a
 * session fixed before sign-in is never the one that gets rights), the account recorded with its
 * sign-in time, and the session cookie set. The caller logs its own event and redirects.
 */
import type { Context } from 'hono';
import { SESSION_COOKIE, setCookie } from '../http/cookies.ts';
import type { Session } from '../session/session.ts';
import type { Ctx } from '../context/deps.ts';

export async function startSession(
  ctx: Ctx,
  c: Context,
  who: Pick<Session, 'subject' | 'display' | 'admin'>,
): Promise<Session> {
  const now = ctx.clock.now();
  const session = ctx.sessions.newSession(who, now);
  await ctx.store.recordSignIn({ subject: session.subject, display: session.display, lastSignInAt: now });
  setCookie(c, SESSION_COOKIE, ctx.sessions.encode(session), { secure: ctx.config.secure });
  return session;
}
