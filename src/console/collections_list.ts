/**
 * GET /collections: newest first, open or closed, keyset-paged; an admin's all, anyone else's own
 * (docs/contract.md section 15). A bad filter is answered 400 with the page itself, the form as
 * sent (section 22). The page says how many it shows of how many (section 22).
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { page } from '../http/responses.ts';
import { COLLECTIONS } from '../lists/collections.ts';
import { collectionsPage } from '../views/collections.ts';
import { atLeast } from '../actions/count_cache.ts';
import { chrome, listQuery, pageFrom, viewer } from './page_helpers.ts';

export function collectionsList(ctx: Ctx): Handler<UiEnv> {
  return async function collectionsListHandler(c) {
    const q = listQuery(c, COLLECTIONS);
    if (!q.ok)
      return page(c, collectionsPage(chrome(ctx, c), { page: { items: [] }, query: q.sent, error: q.error }), 400);
    const { before, state } = q.values;
    const collections = await ctx.store.collectionsVisibleTo(viewer(c), { before, limit: PAGE_SIZE }, state);
    // The store has no count of collections: the page says the whole list, or more than it has shown.
    const from = pageFrom(c, before === undefined);
    const total = atLeast(collections, from, ctx.clock.now());
    return page(c, collectionsPage(chrome(ctx, c), { page: collections, query: q.values, total, from }));
  };
}
