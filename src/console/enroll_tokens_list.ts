/** GET /enroll-tokens: admin only. The outstanding tokens, newest first, 50 a page, and the mint form. */
import type { Handler } from 'hono';
import { TOKEN_PUBLIC_ID } from '../domain/enroll_tokens.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { enrollTokensPage } from '../views/enroll_tokens.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { chrome } from './page_helpers.ts';

export function enrollTokensList(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokensListHandler(c) {
    // This list's cursor is the public id of the last token shown (tokens have no sequence number).
    const values = c.req.queries('before');
    const before = values?.[0];
    if (values !== undefined && (values.length !== 1 || before === undefined || !TOKEN_PUBLIC_ID.test(before)))
      return fail(c, 'badCursor');
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
