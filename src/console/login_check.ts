/**
 * POST /login: break-glass sign-in. Every attempt waits its turn and the throttle's delay; a
 * wrong username, a wrong password and a missing credential cost the same and answer the same.
 * With a second factor enrolled (docs/contract.md section 14) the form's `code` must verify too, and
 * a wrong or missing one is that same failure: the factor is checked, by the same steps, whatever
 * the password; without one, `code` is ignored and sign-in is the specification's.
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
import { checkSecondFactor, type FactorCheck } from '../actions/totp.ts';

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
    const subject = `local:${config.adminUser}`;
    // Filled in by the attempt; an object, so the type checker sees that the callback changes it.
    const checked: { factor: FactorCheck } = { factor: { enrolled: false } };
    const outcome = await ctx.throttle
      .attempt(client, async () => {
        const passwordOk = await ctx.hashSlot(async () => {
          const stored = await store.passwordHash(config.adminUser);
          const passwordOk = await verifyPassword(password, stored ?? (await decoyHash()));
          return stored !== undefined && constantTimeEqual(username, config.adminUser) && passwordOk;
        });
        const factor = await checkSecondFactor(ctx, subject, form.fields.get('code') ?? '', passwordOk);
        checked.factor = factor;
        return passwordOk && (!factor.enrolled || factor.ok);
      })
      // Every password-hash slot taken and the waiting list full (attempts from many addresses at
      // once): no password was checked, so nothing is recorded; the delay was already slept.
      .catch((err: unknown) => (err instanceof SlotsBusy ? ('busy' as const) : Promise.reject(err)));
    if (outcome === 'busy') return fail(c, 'signInsWaiting');

    const user = username.slice(0, 256);
    if (!outcome) {
      // Its webhook message is written with its audit row, at most once a minute per address
      // (audit/refusal_limit.ts; docs/contract.md section 23).
      await logger.emit(EVENTS.loginLocalFailed, { user, client });
      return page(c, loginPage({ oidcAvailable: ctx.oidcAvailable, error: true, username: user }), 401);
    }
    const session = await startSession(ctx, c, { subject, display: config.adminUser, admin: true }, 'local');
    if (session instanceof Response) return session;
    await logger.emit(EVENTS.loginLocalSucceeded, { user, client, method: 'local' });
    const used = checked.factor;
    if (used.enrolled && used.ok && used.method === 'recovery')
      await logger.emit(EVENTS.totpRecoveryUsed, { account: subject, client, left: used.recoveryLeft });
    return seeOther(c, '/');
  };
}
