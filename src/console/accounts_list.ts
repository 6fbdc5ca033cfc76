/** GET /accounts: admin only (CONTRACT section 9); known accounts, most recent sign-in first, 50 a page. */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { ACCOUNTS_CURSOR } from '../store/accounts.ts';
import { accountsPage } from '../views/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { chrome } from './page_helpers.ts';

export function accountsList(ctx: Ctx): Handler<UiEnv> {
  return async function accountsListHandler(c) {
    const given = c.req.queries('before');
    const before = given?.[0];
    if (given !== undefined && (given.length !== 1 || before === undefined || !ACCOUNTS_CURSOR.test(before)))
      return fail(c, 'badCursor');
    const accounts = await ctx.store.accountsPage({ before, limit: PAGE_SIZE });
    return page(c, accountsPage(chrome(ctx, c), { page: accounts, first: before === undefined }));
  };
}
