/**
 * POST /login: break-glass sign-in. Every attempt waits its turn and the throttle's delay; a
 * wrong username, a wrong password and a missing credential cost the same and answer the same.
 */
import type { Handler } from 'hono';
import { constantTimeEqual } from '../crypto/random.ts';
import { decoyHash, verifyPassword } from '../crypto/password.ts';
import { clientAddress } from '../http/client_address.ts';
import { SESSION_COOKIE, setCookie } from '../http/cookies.ts';
import { readForm } from '../http/form.ts';
import { page, seeOther, textError } from '../http/responses.ts';
import { SlotsBusy } from '../throttle/throttle.ts';
import { loginPage } from '../views/login.ts';
import type { Ctx } from './deps.ts';

export function loginCheck(ctx: Ctx): Handler {
  const { config, store, logger } = ctx;
  return async function loginCheckHandler(c) {
    const form = await readForm(c.req.raw);
    if (!form.ok)
      return form.reason === 'too-large' ? textError(c, 413, 'form too large') : textError(c, 400, 'bad form');
    const username = form.fields.get('username');
    const password = form.fields.get('password');
    if (username === undefined || password === undefined) return textError(c, 400, 'bad form');

    const client = clientAddress(c);
    const outcome = await ctx.throttle
      .attempt(client, () =>
        ctx.hashSlot(async () => {
          const stored = await store.passwordHash(config.adminUser);
          const passwordOk = await verifyPassword(password, stored ?? (await decoyHash()));
          return stored !== undefined && constantTimeEqual(username, config.adminUser) && passwordOk;
        }),
      )
      // Every password-hash slot taken and the waiting list full (attempts from many addresses at
      // once): no password was checked, so nothing is recorded; the delay was already slept.
      .catch((err: unknown) => (err instanceof SlotsBusy ? ('busy' as const) : Promise.reject(err)));
    if (outcome === 'busy') return textError(c, 429, 'too many sign-in attempts are waiting; try again later');

    const user = username.slice(0, 256);
    if (!outcome) {
      logger.log('warn', 'login.local.failed', { user, client });
      return page(c, loginPage({ oidcAvailable: ctx.oidcAvailable, error: true, username: user }), 401);
    }
    const now = ctx.clock.now();
    const session = ctx.sessions.newSession(
      { subject: `local:${config.adminUser}`, display: config.adminUser, admin: true },
      now,
    );
    await store.recordSignIn({ subject: session.subject, display: session.display, lastSignInAt: now });
    setCookie(c, SESSION_COOKIE, ctx.sessions.encode(session), { secure: config.secure });
    logger.log('info', 'login.local.succeeded', { user, client, method: 'local' });
    return seeOther(c, '/');
  };
}
