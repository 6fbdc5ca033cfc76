/** The console's session, read from its cookie: by the guard, by sign-out and by the API's document. */
import type { Context } from 'hono';
import { readCookie, SESSION_COOKIE } from '../http/cookies.ts';
import { clientAddress } from '../http/client_address.ts';
import { shortBrowser } from '../domain/sessions.ts';
import type { Session } from '../session/session.ts';
import type { Ctx } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { innermostReason } from '../store/errors.ts';

/** The session its cookie carries, if the cookie parses, verifies and has not expired. */
export function cookieSession(ctx: Ctx, c: Context): Session | undefined {
  const value = readCookie(c, SESSION_COOKIE);
  return value === undefined ? undefined : ctx.sessions.decode(value, ctx.clock.now());
}

/**
 * The session its cookie carries, if the cookie verifies and the store says the session is live
 * (docs/contract.md section 14): recorded at sign-in as the cookie says, not signed out, not ended
 * from the sessions page or by the identity provider, its account not disabled. The store is read
 * on every request, with no cache, so an ended session is refused by every instance at once.
 * Should the store fail, the answer is 'unavailable' (the guard's 503): a session the store cannot
 * vouch for is never let through (issue 34, finding 4).
 */
export async function liveSession(ctx: Ctx, c: Context): Promise<Session | 'unavailable' | undefined> {
  const session = cookieSession(ctx, c);
  if (!session) return undefined;
  const seen = sessionSeen(session, clientAddress(c), c.req.header('user-agent'));
  try {
    return (await ctx.store.seeSession(seen, ctx.clock.now())) === 'live' ? session : undefined;
  } catch (err) {
    await ctx.logger.emit(EVENTS.storeUnavailable, { error: innermostReason(err), path: c.req.path });
    return 'unavailable';
  }
}

/**
 * The account's groups as the store holds them now (docs/contract.md section 19), read on every
 * request, so that a change reaches every session at its next request on every instance; as
 * liveSession, 'unavailable' when the store cannot say, and nothing is let through on a guess.
 */
export async function liveGroups(ctx: Ctx, c: Context, subject: string): Promise<string[] | 'unavailable'> {
  try {
    return await ctx.store.accountGroups(subject);
  } catch (err) {
    await ctx.logger.emit(EVENTS.storeUnavailable, { error: innermostReason(err), path: c.req.path });
    return 'unavailable';
  }
}

/** What the store records of a session seen from a client (store.seeSession). */
export function sessionSeen(session: Session, client: string, userAgent: string | undefined) {
  return {
    id: session.id,
    subject: session.subject,
    admin: session.admin,
    expiresAt: session.expires,
    client,
    browser: shortBrowser(userAgent),
  };
}
