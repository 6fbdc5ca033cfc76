/**
 * GET /totp: the break-glass account's second factor (docs/contract.md section 14). Not enrolled: a
 * new secret as a QR code and as text, with the form that confirms it; enrolled: its state and the
 * form that removes it. The secret is never shown again once confirmed.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { totpEnrollPage, totpStatusPage } from '../views/totp.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { startTotpEnrollment } from '../actions/totp.ts';
import { actor, chrome, isBreakGlass } from './page_helpers.ts';

export function totpShow(ctx: Ctx): Handler<UiEnv> {
  return async function totpShowHandler(c) {
    if (!isBreakGlass(ctx, c)) return fail(c, 'totpLocalOnly');
    const factor = await ctx.store.totpFactor(c.get('session').subject);
    if (factor) {
      const opts = { enrolledAt: factor.enrolledAt, recoveryLeft: factor.recoveryHashes.length };
      return page(c, totpStatusPage(chrome(ctx, c), opts));
    }
    const pending = await startTotpEnrollment(ctx, actor(c), {
      session: c.get('session').id,
      account: ctx.config.adminUser,
      serverName: ctx.config.serverName,
    });
    return page(c, totpEnrollPage(chrome(ctx, c), pending));
  };
}
