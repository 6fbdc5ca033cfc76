/**
 * GET /enroll-tokens: admin only. The outstanding tokens, newest first, 50 a page, and the mint
 * form. A bad cursor is answered 400 with the page, its alert and no tokens (docs/contract.md
 * section 22).
 */
import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { page } from '../http/responses.ts';
import { enrollTokensPage } from '../views/enroll_tokens.ts';
import type { FilterError } from '../views/list_parts.ts';
import type { Refused } from '../views/form_errors.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ENROLL_TOKENS } from '../lists/pages.ts';
import { chrome, listQuery } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function enrollTokensList(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokensListHandler(c) {
    // This list's cursor is the public id of the last token shown (tokens have no sequence number).
    const q = listQuery(c, ENROLL_TOKENS);
    if (!q.ok) return enrollTokensAnswer(ctx, c, { error: q.error }, 400);
    return enrollTokensAnswer(ctx, c, { before: q.values.before }, 200);
  };
}

/**
 * The page with the tokens after `before` (none for a refused cursor, `error`), and the mint form,
 * filled in as sent when the mint was `refused` (POST /enroll-tokens answers with it).
 */
export async function enrollTokensAnswer(
  ctx: Ctx,
  c: Context<UiEnv>,
  opts: { before?: string | undefined; error?: FilterError; refused?: Refused },
  status: ContentfulStatusCode,
): Promise<Response> {
  const { before, error, refused } = opts;
  const [tokens, accounts] = await Promise.all([
    error === undefined
      ? ctx.store.outstandingEnrollTokens({ before, limit: PAGE_SIZE }, ctx.clock.now())
      : { items: [] },
    ctx.store.knownAccounts(200),
  ]);
  const shown = {
    page: tokens,
    accounts,
    first: before === undefined && error === undefined,
    defaultTtlSeconds: ctx.config.enrollTokenTtlSeconds,
    error,
    refused,
  };
  return page(c, enrollTokensPage(chrome(ctx, c), shown), status);
}
