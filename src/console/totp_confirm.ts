/**
 * POST /totp: confirms the secret shown by GET /totp with one code from it (form: `pending`, the
 * sealed secret; `code`), then shows the 10 recovery codes on this answer only. A wrong code shows
 * the same secret again with the error, since nothing is enrolled yet.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { totpEnrollPage, totpRecoveryPage } from '../views/totp.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { confirmTotpEnrollment, startTotpEnrollment } from '../actions/totp.ts';
import { actor, chrome, isBreakGlass } from './page_helpers.ts';

export function totpConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function totpConfirmHandler(c) {
    if (!isBreakGlass(ctx, c)) return fail(c, 'totpLocalOnly');
    const form = c.get('form');
    const pending = form.get('pending');
    const code = form.get('code');
    if (pending === undefined || code === undefined) return fail(c, 'badForm');
    const session = c.get('session').id;
    const outcome = await confirmTotpEnrollment(ctx, actor(c), { session, pending, code });
    if (outcome.ok) return page(c, totpRecoveryPage(chrome(ctx, c), { codes: outcome.recoveryCodes }));
    if (outcome.failure === 'totpAlreadyEnrolled') return fail(c, 'totpAlreadyEnrolled');
    if (outcome.failure === 'totpWrongCode') {
      // The secret is the one just shown (it opened), so the page can show it again.
      const again = await startTotpEnrollment(ctx, actor(c), {
        session,
        account: ctx.config.adminUser,
        serverName: ctx.config.serverName,
        pending,
      });
      const message = 'That code does not match: check the clock of the device and type the newest code.';
      const refused = { sent: c.get('form'), error: { field: 'code', message } };
      return page(c, totpEnrollPage(chrome(ctx, c), { ...again, refused }), 400);
    }
    // Expired or not this session's: a fresh secret to scan.
    const fresh = await startTotpEnrollment(ctx, actor(c), {
      session,
      account: ctx.config.adminUser,
      serverName: ctx.config.serverName,
    });
    const error = 'That setup page expired: scan this new code and confirm within 10 minutes.';
    return page(c, totpEnrollPage(chrome(ctx, c), { ...fresh, error }), 400);
  };
}
