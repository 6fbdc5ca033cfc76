/**
 * GET /accounts: admin only (docs/contract.md section 9); known accounts, most recent sign-in first,
 * 50 a page. A bad cursor is answered 400 with the page, its alert and no accounts (section 22).
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { accountsPage, PROVISIONED_SHOWN } from '../views/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ACCOUNTS } from '../lists/pages.ts';
import { chrome, listQuery } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function accountsList(ctx: Ctx): Handler<UiEnv> {
  return async function accountsListHandler(c) {
    const q = listQuery(c, ACCOUNTS);
    if (!q.ok) return page(c, accountsPage(chrome(ctx, c), { page: { items: [] }, first: false, error: q.error }), 400);
    const { before } = q.values;
    const accounts = await ctx.store.accountsPage({ before, limit: PAGE_SIZE });
    // docs/contract.md section 20: users provisioned over SCIM that have not signed in yet.
    const provisioned = before === undefined ? await ctx.store.unlinkedScimUsers(PROVISIONED_SHOWN) : undefined;
    return page(c, accountsPage(chrome(ctx, c), { page: accounts, first: before === undefined, provisioned }));
  };
}
