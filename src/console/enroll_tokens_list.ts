/** GET /enroll-tokens: admin only. The outstanding tokens, newest first, 50 a page, and the mint form. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { enrollTokensPage } from '../views/enroll_tokens.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ENROLL_TOKENS } from '../lists/pages.ts';
import { chrome, listParameters } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function enrollTokensList(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokensListHandler(c) {
    // This list's cursor is the public id of the last token shown (tokens have no sequence number).
    const q = listParameters(c, ENROLL_TOKENS);
    if (q instanceof Response) return q;
    const { before } = q;
    const [tokens, accounts] = await Promise.all([
      ctx.store.outstandingEnrollTokens({ before, limit: PAGE_SIZE }, ctx.clock.now()),
      ctx.store.knownAccounts(200),
    ]);
    return page(
      c,
      enrollTokensPage(chrome(ctx, c), {
        page: tokens,
        accounts,
        first: before === undefined,
        defaultTtlSeconds: ctx.config.enrollTokenTtlSeconds,
      }),
    );
  };
}
