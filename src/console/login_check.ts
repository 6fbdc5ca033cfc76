/**
 * POST /login: break-glass sign-in. Every attempt waits its turn and the throttle's delay; a
 * wrong username, a wrong password and a missing credential cost the same and answer the same.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { constantTimeEqual } from '../crypto/random.ts';
import { decoyHash, verifyPassword } from '../crypto/password.ts';
import { clientAddress } from '../http/client_address.ts';
import { readForm } from '../http/form.ts';
import { page, seeOther } from '../http/responses.ts';
import { SlotsBusy } from '../throttle/throttle.ts';
import { loginPage } from '../views/login.ts';
import type { Ctx } from '../context/deps.ts';
import { startSession } from './sign_in.ts';
import { EVENTS } from '../events/catalogue.ts';

export function loginCheck(ctx: Ctx): Handler {
  const { config, store, logger } = ctx;
  return async function loginCheckHandler(c) {
    const form = await readForm(c.req.raw);
    if (!form.ok) {
      if (form.reason === 'too-slow') return fail(c, 'requestTimeout');
      return form.reason === 'too-large' ? fail(c, 'formTooLarge') : fail(c, 'badForm');
    }
    const username = form.fields.get('username');
    const password = form.fields.get('password');
    if (username === undefined || password === undefined) return fail(c, 'badForm');

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
    if (outcome === 'busy') return fail(c, 'signInsWaiting');

    const user = username.slice(0, 256);
    if (!outcome) {
      await logger.emit(EVENTS.loginLocalFailed, { user, client });
      return page(c, loginPage({ oidcAvailable: ctx.oidcAvailable, error: true, username: user }), 401);
    }
    const session = await startSession(
      ctx,
      c,
      { subject: `local:${config.adminUser}`, display: config.adminUser, admin: true },
      'local',
    );
    if (session instanceof Response) return session;
    await logger.emit(EVENTS.loginLocalSucceeded, { user, client, method: 'local' });
    return seeOther(c, '/');
  };
}
