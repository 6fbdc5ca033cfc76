/**
 * GET /accounts: admin only (docs/contract.md section 9); known accounts, most recent sign-in first,
 * 50 a page, and how many there are (section 22). A bad cursor is answered 400 with the page, its
 * alert and no accounts.
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { accountsPage, PROVISIONED_SHOWN } from '../views/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ACCOUNTS } from '../lists/pages.ts';
import { COUNT_UP_TO, countCache, countedTotal, wholeList } from '../actions/count_cache.ts';
import { chrome, listQuery, pageFrom } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function accountsList(ctx: Ctx): Handler<UiEnv> {
  const kept = countCache(ctx.clock);
  return async function accountsListHandler(c) {
    const q = listQuery(c, ACCOUNTS);
    if (!q.ok) return page(c, accountsPage(chrome(ctx, c), { page: { items: [] }, first: false, error: q.error }), 400);
    const { before } = q.values;
    const first = before === undefined;
    const accounts = await ctx.store.accountsPage({ before, limit: PAGE_SIZE });
    // docs/contract.md section 20: users provisioned over SCIM that have not signed in yet.
    const provisioned = first ? await ctx.store.unlinkedScimUsers(PROVISIONED_SHOWN) : undefined;
    // The accounts known, counted by the store up to COUNT_UP_TO (the list's rows without their columns).
    const total =
      wholeList(accounts, first, ctx.clock.now()) ??
      (await kept('accounts', (now) => ctx.store.countAccounts(COUNT_UP_TO).then((n) => countedTotal(n, now))));
    const shown = { page: accounts, first, provisioned, total, from: pageFrom(c, first) };
    return page(c, accountsPage(chrome(ctx, c), shown));
  };
}
