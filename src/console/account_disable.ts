/**
 * POST /accounts/{subject}/disable and …/enable: admin only (docs/contract.md section 14). Disable
 * ends the account's sessions and refuses its tokens and its sign-in; the break-glass account
 * cannot be disabled (409). Disable takes an optional `hand_over_to` (docs/contract.md section 19):
 * every device the account owns moves there. Both are audited and go back to the account's page.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { disableAccount, enableAccount } from '../actions/accounts.ts';
import { breakGlassSubject } from '../domain/accounts.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function accountDisable(ctx: Ctx): Handler<UiEnv> {
  return async function accountDisableHandler(c) {
    const subject = c.req.param('subject') ?? '';
    // docs/contract.md section 19: optional; empty (the form's "keep them") hands nothing over.
    const handOverTo = (c.get('form').get('hand_over_to') ?? '').trim() || undefined;
    const done = await disableAccount(ctx, actor(c), {
      subject,
      breakGlass: breakGlassSubject(ctx.config.adminUser),
      handOverTo,
    });
    if (!done.ok) return done.failure === 'badOwner' ? fail(c, 'badOwner', done.detail) : fail(c, done.failure);
    setNotice(ctx, c, { kind: 'account-disabled', count: done.sessions, handedOver: done.handedOver });
    return seeOther(c, `/accounts/${encodeURIComponent(subject)}`);
  };
}

export function accountEnable(ctx: Ctx): Handler<UiEnv> {
  return async function accountEnableHandler(c) {
    const subject = c.req.param('subject') ?? '';
    const done = await enableAccount(ctx, actor(c), subject);
    if (!done.ok) return fail(c, done.failure);
    setNotice(ctx, c, { kind: 'account-enabled' });
    return seeOther(c, `/accounts/${encodeURIComponent(subject)}`);
  };
}
