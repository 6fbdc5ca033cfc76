/**
 * POST /collections/{id}/cancel: its creator or an administrator cancels its open targets; 303 to
 * the collection, which shows them cancelled, or to the page of its targets it was posted from
 * (`return`, docs/contract.md section 22). Anyone else, like an unknown id, is answered 404
 * (section 15).
 */
import type { Handler } from 'hono';
import { cancelCollection } from '../actions/collections.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import { collectionPath } from '../views/collections.ts';
import { actor } from './page_helpers.ts';

export function collectionCancel(ctx: Ctx): Handler<UiEnv> {
  return async function collectionCancelHandler(c) {
    const id = c.req.param('id') ?? '';
    if ((await cancelCollection(ctx, actor(c), id)) === 'unknown') return fail(c, 'collectionNotFound');
    return seeOther(c, backTo(c.get('form').get('return'), collectionPath(id)));
  };
}
