/**
 * POST /totp/disable: removes the break-glass account's second factor once a code verifies (a
 * current one or an unused recovery code). The code is checked through the sign-in throttle: a
 * wrong one is a failed attempt from this address, as at sign-in.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page, seeOther } from '../http/responses.ts';
import { clientAddress } from '../http/client_address.ts';
import { totpStatusPage } from '../views/totp.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { disableTotp } from '../actions/totp.ts';
import { actor, chrome, isBreakGlass } from './page_helpers.ts';
import { setNotice } from './notice.ts';

export function totpDisable(ctx: Ctx): Handler<UiEnv> {
  return async function totpDisableHandler(c) {
    if (!isBreakGlass(ctx, c)) return fail(c, 'totpLocalOnly');
    const code = c.get('form').get('code');
    if (code === undefined) return fail(c, 'badForm');
    let outcome: Awaited<ReturnType<typeof disableTotp>> = 'totpNotEnrolled';
    const attempt = await ctx.throttle.attempt(clientAddress(c), async () => {
      outcome = await disableTotp(ctx, actor(c), code, c.get('session').id);
      return outcome !== 'totpWrongCode';
    });
    if (attempt === 'busy') return fail(c, 'signInsWaiting');
    if (outcome === 'totpNotEnrolled') return fail(c, 'totpNotEnrolled');
    if (outcome === 'disabled') {
      setNotice(ctx, c, { kind: 'totp-disabled' });
      return seeOther(c, '/totp');
    }
    const factor = await ctx.store.totpFactor(c.get('session').subject);
    if (!factor) return fail(c, 'totpNotEnrolled');
    const refused = {
      sent: c.get('form'),
      error: { field: 'code', message: 'That code is not valid (or was used already).' },
    };
    const opts = { enrolledAt: factor.enrolledAt, recoveryLeft: factor.recoveryHashes.length, refused };
    return page(c, totpStatusPage(chrome(ctx, c), opts), 400);
  };
}
