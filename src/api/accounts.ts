/**
 * GET /api/v1/accounts (docs/contract.md sections 9 and 11), admin tokens only: the known accounts, most
 * recent sign-in first, with their device and run counts, paged by `before`.
 */
import type { Handler } from 'hono';
import type { AccountSummary } from '../domain/accounts.ts';
import { ACCOUNTS } from '../lists/pages.ts';
import { parameterNames } from '../lists/parameters.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { listParameters } from './params.ts';
import { iso, pageJson } from './resources.ts';

export function accountJson(a: AccountSummary) {
  return {
    subject: a.subject,
    display: a.display,
    last_sign_in_at: iso(a.lastSignInAt),
    admin: a.admin,
    disabled_at: iso(a.disabledAt),
    devices: a.devices,
    runs: a.runs,
  };
}

export function apiAccounts(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: parameterNames(ACCOUNTS), admin: 'listing accounts' }, async (c) => {
    const q = listParameters(c, ACCOUNTS);
    if (q instanceof Response) return q;
    const page = await ctx.store.accountsPage({ before: q.before, limit: PAGE_SIZE });
    return c.json(pageJson(page, accountJson));
  });
}
