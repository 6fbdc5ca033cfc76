/**
 * What every successful sign-in ends with, local or OIDC: a new session (a fresh random id, so a
 * session fixed before sign-in is never the one that gets rights), the account recorded with its
 * sign-in time and the admin flag this sign-in gave it, the session recorded (docs/contract.md
 * section 14), and the session cookie set. A disabled account gets none of it: the sign-in is
 * refused, logged and answered 403, by either method. The caller logs its own success and redirects.
 */
import type { Context } from 'hono';
import { SESSION_COOKIE, setCookie } from '../http/cookies.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import { shortBrowser } from '../domain/sessions.ts';
import type { Session } from '../session/session.ts';
import type { Ctx } from '../context/deps.ts';
import { EVENTS } from '../events/catalogue.ts';

export async function startSession(
  ctx: Ctx,
  c: Context,
  who: Pick<Session, 'subject' | 'display' | 'admin'>,
  method: 'local' | 'oidc',
  sid?: string,
): Promise<Session | Response> {
  const now = ctx.clock.now();
  const client = clientAddress(c);
  if ((await ctx.store.accountState(who.subject))?.disabledAt != null) {
    await ctx.logger.emit(EVENTS.loginRefusedDisabled, { account: who.subject, method, client });
    return fail(c, 'accountDisabled');
  }
  const session = ctx.sessions.newSession(who, now);
  await ctx.store.recordSignIn({
    subject: session.subject,
    display: session.display,
    lastSignInAt: now,
    admin: who.admin,
  });
  await ctx.store.recordSession({
    id: session.id,
    subject: session.subject,
    admin: session.admin,
    sid,
    startedAt: now,
    expiresAt: session.expires,
    client,
    browser: shortBrowser(c.req.header('user-agent')),
  });
  setCookie(c, SESSION_COOKIE, ctx.sessions.encode(session), { secure: ctx.config.secure });
  return session;
}
