/**
 * GET /collections/{id}: one collection, its counts and its targets keyset-paged, to its creator or
 * an administrator; anyone else, like an unknown id, is answered 404 (docs/contract.md section 15).
 * A bad filter of the targets is answered 400 with the page, the form as sent (section 22).
 * How many targets the list holds is the collection's counts by state, read with it.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { type Collection, COLLECTION_ID, TARGET_STATES, type TargetState } from '../domain/collections.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { hereOf } from '../http/return_path.ts';
import { COLLECTION_TARGETS } from '../lists/collections.ts';
import { collectionPage } from '../views/collection.ts';
import type { ListTotal } from '../views/list_parts.ts';
import { chrome, listQuery, pageFrom, viewer } from './page_helpers.ts';

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
    const shown = {
      collection,
      targets,
      query: q.values,
      total: targetsTotal(collection, state, ctx.clock.now()),
      from: pageFrom(c, before === undefined),
      here: hereOf(c.req.url),
    };
    return page(c, collectionPage(chrome(ctx, c), shown));
  };
}

/** How many targets the list holds: the collection's count of the state asked, or of every state. */
export function targetsTotal(collection: Collection, state: TargetState | undefined, now: number): ListTotal {
  const n =
    state === undefined ? TARGET_STATES.reduce((sum, s) => sum + collection.counts[s], 0) : collection.counts[state];
  return { n, more: false, countedAt: now };
}
