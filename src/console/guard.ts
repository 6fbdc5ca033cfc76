/**
 * The guard of the specification's Endpoints section: a valid, live session (else 303 to /login); for
 * methods other than GET and HEAD the form field `csrf` must match (else 403); then, for admin-only
 * routes, the Admin flag (else 403, logged). The CSRF check runs before the admin check.
 */
import { fail } from '../http/failures.ts';
import type { MiddlewareHandler } from 'hono';
import { readForm } from '../http/form.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import type { Access } from '../context/routes.ts';
import { liveGroups, liveSession } from '../context/session_cookie.ts';
import { EVENTS } from '../events/catalogue.ts';

export function guard(ctx: Ctx, access: Exclude<Access, 'none' | 'token'>): MiddlewareHandler<UiEnv> {
  return async function guardMiddleware(c, next) {
    // A session ended (signed out, ended from the sessions page, its account disabled) stays
    // refused though a copy of its cookie is still valid (context/session_cookie.ts).
    const session = await liveSession(ctx, c);
    // Fail closed: a store that cannot say the session is live lets nobody through.
    if (session === 'unavailable') return fail(c, 'storeUnavailable');
    if (!session) return seeOther(c, '/login');
    c.set('session', session);
    // An administrator's scope is everything: its groups reach nothing more, and are not read.
    const groups = session.admin ? [] : await liveGroups(ctx, c, session.subject);
    if (groups === 'unavailable') return fail(c, 'storeUnavailable');
    c.set('groups', groups);

    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const form = await readForm(c.req.raw);
      if (!form.ok && form.reason === 'too-large') return fail(c, 'formTooLarge');
      if (!form.ok && form.reason === 'too-slow') return fail(c, 'requestTimeout');
      if (!form.ok || !ctx.sessions.csrfValid(session, form.fields.get('csrf'))) {
        return fail(c, 'staleForm');
      }
      c.set('form', form.fields);
    }

    if (access === 'admin' && !session.admin) {
      await ctx.logger.emit(EVENTS.accessAdminRefused, { account: session.subject, path: c.req.path });
      return fail(c, 'adminOnly');
    }
    await next();
    return undefined;
  };
}
