/**
 * GET /api/v1/accounts (CONTRACT sections 9 and 11), admin tokens only: the known accounts, most
 * recent sign-in first, with their device and run counts, paged by `before`.
 */
import type { Handler } from 'hono';
import type { AccountSummary } from '../domain/accounts.ts';
import { ACCOUNTS_CURSOR } from '../store/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { badParameter } from './params.ts';
import { iso, pageJson } from './resources.ts';

export function accountJson(a: AccountSummary) {
  return {
    subject: a.subject,
    display: a.display,
    last_sign_in_at: iso(a.lastSignInAt),
    devices: a.devices,
    runs: a.runs,
  };
}

export function apiAccounts(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: ['before'], admin: 'listing accounts' }, async (c) => {
    const before = c.req.query('before');
    if (before !== undefined && !ACCOUNTS_CURSOR.test(before))
      return badParameter(c, 'badCursor', { badCursor: 'before' });
    const page = await ctx.store.accountsPage({ before, limit: PAGE_SIZE });
    return c.json(pageJson(page, accountJson));
  });
}
