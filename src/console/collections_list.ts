/**
 * GET /collections: newest first, open or closed, keyset-paged; an admin's all, anyone else's own
 * (docs/contract.md section 15). A bad filter is answered 400 with the page itself, the form as
 * sent (section 22). The page says how many it shows of how many, counted by the store (section 22).
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { page } from '../http/responses.ts';
import { COLLECTIONS } from '../lists/collections.ts';
import { collectionsPage } from '../views/collections.ts';
import { COUNT_UP_TO, countCache, countedTotal, wholeList } from '../actions/count_cache.ts';
import { chrome, listQuery, pageFrom, viewer } from './page_helpers.ts';

export function collectionsList(ctx: Ctx): Handler<UiEnv> {
  const kept = countCache(ctx.clock);
  return async function collectionsListHandler(c) {
    const q = listQuery(c, COLLECTIONS);
    if (!q.ok)
      return page(c, collectionsPage(chrome(ctx, c), { page: { items: [] }, query: q.sent, error: q.error }), 400);
    const { before, state } = q.values;
    const who = viewer(c);
    const first = before === undefined;
    const collections = await ctx.store.collectionsVisibleTo(who, { before, limit: PAGE_SIZE }, state);
    // Counted by the store up to COUNT_UP_TO, per creator (an admin's: all) and state, kept a few seconds.
    const total =
      wholeList(collections, first, ctx.clock.now()) ??
      (await kept(`${who.admin ? '*' : who.subject}\n${state ?? ''}`, (now) =>
        ctx.store.countCollectionsVisibleTo(who, state, COUNT_UP_TO).then((n) => countedTotal(n, now)),
      ));
    const from = pageFrom(c, first);
    return page(c, collectionsPage(chrome(ctx, c), { page: collections, query: q.values, total, from }));
  };
}
