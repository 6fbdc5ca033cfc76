/**
 * GET /tokens: any account. Its own personal access tokens (with their scope), newest first, 50 a
 * page, until when they work (docs/contract.md section 14), and the create form. A bad cursor is
 * answered 400 with the page, its alert and no tokens (section 22).
 */
import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { page } from '../http/responses.ts';
import { hereOf } from '../http/return_path.ts';
import { accessTokensPage } from '../views/access_tokens.ts';
import type { FilterError } from '../views/list_parts.ts';
import type { Refused } from '../views/form_errors.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ACCESS_TOKENS } from '../lists/pages.ts';
import { chrome, listQuery } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function accessTokensList(ctx: Ctx): Handler<UiEnv> {
  return async function accessTokensListHandler(c) {
    const q = listQuery(c, ACCESS_TOKENS);
    if (!q.ok) return accessTokensAnswer(ctx, c, { error: q.error }, 400);
    return accessTokensAnswer(ctx, c, { before: q.values.before }, 200);
  };
}

/**
 * The page with the account's tokens after `before` (none for a refused cursor, `error`), and the
 * create form, filled in as sent when the create was `refused` (POST /tokens answers with it).
 */
export async function accessTokensAnswer(
  ctx: Ctx,
  c: Context<UiEnv>,
  opts: { before?: string | undefined; error?: FilterError; refused?: Refused },
  status: ContentfulStatusCode,
): Promise<Response> {
  const { before, error, refused } = opts;
  const { subject } = c.get('session');
  const [tokens, account] = await Promise.all([
    error === undefined ? ctx.store.accessTokensOf(subject, { before, limit: PAGE_SIZE }) : { items: [] },
    ctx.store.accountState(subject),
  ]);
  const shown = {
    page: tokens,
    first: before === undefined && error === undefined,
    account,
    signInMaxAgeMs: ctx.config.accountSignInMaxAgeMs,
    here: hereOf(c.req.url),
    error,
    refused,
  };
  return page(c, accessTokensPage(chrome(ctx, c), shown), status);
}
