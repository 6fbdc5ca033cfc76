/**
 * GET /groups: admin only (docs/contract.md section 19). Every group known, from accounts' groups
 * and from device owners, by name, 50 a page: its members (the first few, and how many) and its
 * number of devices. A bad cursor is answered 400 with the page, its alert and no groups (section 22).
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { groupsPage } from '../views/groups.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { GROUPS } from '../lists/pages.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { COUNT_UP_TO, countCache, countedTotal, wholeList } from '../actions/count_cache.ts';
import { chrome, listQuery, pageFrom } from './page_helpers.ts';

export function groupsList(ctx: Ctx): Handler<UiEnv> {
  const kept = countCache(ctx.clock);
  return async function groupsListHandler(c) {
    const q = listQuery(c, GROUPS);
    if (!q.ok) return page(c, groupsPage(chrome(ctx, c), { page: { items: [] }, first: false, error: q.error }), 400);
    const { before } = q.values;
    const first = before === undefined;
    const groups = await ctx.store.groupsPage({ before, limit: PAGE_SIZE });
    // Counted by the store up to COUNT_UP_TO (the list's own walk over the names), kept a few seconds.
    const total =
      wholeList(groups, first, ctx.clock.now()) ??
      (await kept('groups', (now) => ctx.store.countGroups(COUNT_UP_TO).then((n) => countedTotal(n, now))));
    const from = pageFrom(c, first);
    return page(c, groupsPage(chrome(ctx, c), { page: groups, first, total, from }));
  };
}
