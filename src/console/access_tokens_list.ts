/** GET /tokens: any account. Its own personal access tokens, newest first, 50 a page, and the create form. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { accessTokensPage } from '../views/access_tokens.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ACCESS_TOKENS } from '../lists/pages.ts';
import { chrome, listParameters } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function accessTokensList(ctx: Ctx): Handler<UiEnv> {
  return async function accessTokensListHandler(c) {
    const cursor = listParameters(c, ACCESS_TOKENS);
    if (cursor instanceof Response) return cursor;
    const tokens = await ctx.store.accessTokensOf(c.get('session').subject, {
      before: cursor.before,
      limit: PAGE_SIZE,
    });
    return page(c, accessTokensPage(chrome(ctx, c), { page: tokens, first: cursor.before === undefined }));
  };
}
