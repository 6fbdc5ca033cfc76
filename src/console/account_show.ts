/**
 * GET /accounts/{subject}: admin only (docs/contract.md section 14). One account: its state, its
 * live sessions, its newest tokens and devices, its groups (docs/contract.md section 19), and
 * disable (with where its devices go) or enable.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { accountPage } from '../views/account.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { breakGlassSubject } from '../domain/accounts.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { chrome, viewer } from './page_helpers.ts';

export function accountShow(ctx: Ctx): Handler<UiEnv> {
  return async function accountShowHandler(c) {
    const subject = c.req.param('subject') ?? '';
    const account = await ctx.store.accountState(subject);
    if (!account) return fail(c, 'accountNotFound');
    const now = ctx.clock.now();
    const [sessions, tokens, devices, groups] = await Promise.all([
      ctx.store.sessionsOf(subject, now),
      ctx.store.accessTokensOf(subject, { limit: PAGE_SIZE }),
      ctx.store.devicesVisibleTo(
        viewer(c),
        { limit: PAGE_SIZE },
        { owner: subject, staleBefore: now - ctx.config.staleAfterMs },
      ),
      ctx.store.accountGroups(subject),
    ]);
    return page(
      c,
      accountPage(chrome(ctx, c), {
        account,
        breakGlass: subject === breakGlassSubject(ctx.config.adminUser),
        sessions,
        tokens: tokens.items,
        moreTokens: tokens.next !== undefined,
        devices: devices.items,
        moreDevices: devices.next !== undefined,
        signInMaxAgeMs: ctx.config.accountSignInMaxAgeMs,
        groups,
      }),
    );
  };
}
