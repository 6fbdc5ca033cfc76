/**
 * GET /collections/{id}: one collection, its counts and its targets keyset-paged, to its creator or
 * an administrator; anyone else, like an unknown id, is answered 404 (docs/contract.md section 15).
 * A bad filter of the targets is answered 400 with the page, the form as sent (section 22).
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { COLLECTION_ID } from '../domain/collections.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { COLLECTION_TARGETS } from '../lists/collections.ts';
import { collectionPage } from '../views/collection.ts';
import { chrome, listQuery, viewer } from './page_helpers.ts';

export function collectionShow(ctx: Ctx): Handler<UiEnv> {
  return async function collectionShowHandler(c) {
    const id = c.req.param('id') ?? '';
    const collection = COLLECTION_ID.test(id) ? await ctx.store.collectionVisibleTo(viewer(c), id) : undefined;
    if (!collection) return fail(c, 'collectionNotFound');
    const q = listQuery(c, COLLECTION_TARGETS);
    if (!q.ok) {
      const refused = { collection, targets: { items: [] }, query: q.sent, error: q.error };
      return page(c, collectionPage(chrome(ctx, c), refused), 400);
    }
    const { before, state } = q.values;
    const targets = await ctx.store.collectionTargets(viewer(c), id, { before, limit: PAGE_SIZE }, state);
    return page(c, collectionPage(chrome(ctx, c), { collection, targets, query: q.values }));
  };
}
