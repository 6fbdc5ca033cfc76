/** GET /collections: newest first, open or closed, keyset-paged; an admin's all, anyone else's own (docs/contract.md section 15). */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { page } from '../http/responses.ts';
import { COLLECTIONS } from '../lists/collections.ts';
import { collectionsPage } from '../views/collections.ts';
import { chrome, listParameters, viewer } from './page_helpers.ts';

export function collectionsList(ctx: Ctx): Handler<UiEnv> {
  return async function collectionsListHandler(c) {
    const q = listParameters(c, COLLECTIONS);
    if (q instanceof Response) return q;
    const collections = await ctx.store.collectionsVisibleTo(
      viewer(c),
      { before: q.before, limit: PAGE_SIZE },
      q.state,
    );
    return page(c, collectionsPage(chrome(ctx, c), { page: collections, query: q }));
  };
}
