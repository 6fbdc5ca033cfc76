/**
 * GET /tokens: any account. Its own personal access tokens (with their scope), newest first, 50 a
 * page, until when they work (docs/contract.md section 14), and the create form.
 */
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
    const { subject } = c.get('session');
    const [tokens, account] = await Promise.all([
      ctx.store.accessTokensOf(subject, { before: cursor.before, limit: PAGE_SIZE }),
      ctx.store.accountState(subject),
    ]);
    return page(
      c,
      accessTokensPage(chrome(ctx, c), {
        page: tokens,
        first: cursor.before === undefined,
        account,
        signInMaxAgeMs: ctx.config.accountSignInMaxAgeMs,
      }),
    );
  };
}
