/** The console's session, read from its cookie: by the guard, by sign-out and by the API's document. */
import type { Context } from 'hono';
import { readCookie, SESSION_COOKIE } from '../http/cookies.ts';
import { clientAddress } from '../http/client_address.ts';
import { shortBrowser } from '../domain/sessions.ts';
import type { Session } from '../session/session.ts';
import type { Ctx } from './deps.ts';

/** The session its cookie carries, if the cookie parses, verifies and has not expired. */
export function cookieSession(ctx: Ctx, c: Context): Session | undefined {
  const value = readCookie(c, SESSION_COOKIE);
  return value === undefined ? undefined : ctx.sessions.decode(value, ctx.clock.now());
}

/**
 * The session its cookie carries, if the cookie verifies and the store says the session is live
 * (docs/contract.md section 14): not signed out, not ended from the sessions page, its account not
 * disabled. The store is read on every request, with no cache, so an ended session is refused by
 * every instance at once. Should the store be away, this one check lets the session through: every
 * page but the dashboard needs the store anyway, and the dashboard must be able to show that it is failing.
 */
export async function liveSession(ctx: Ctx, c: Context): Promise<Session | undefined> {
  const session = cookieSession(ctx, c);
  if (!session) return undefined;
  const seen = sessionSeen(session, clientAddress(c), c.req.header('user-agent'));
  const state = await ctx.store.seeSession(seen, ctx.clock.now()).catch(() => 'live' as const);
  return state === 'live' ? session : undefined;
}

/** What the store records of a session seen from a client (store.seeSession). */
export function sessionSeen(session: Session, client: string, userAgent: string | undefined) {
  return {
    id: session.id,
    subject: session.subject,
    expiresAt: session.expires,
    client,
    browser: shortBrowser(userAgent),
  };
}
