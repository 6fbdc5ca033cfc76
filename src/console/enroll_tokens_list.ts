/**
 * GET /enroll-tokens: admin only. The outstanding tokens, newest first, 50 a page, with how many
 * there are, and the mint form. A bad cursor is answered 400 with the page, its alert and no tokens
 * (docs/contract.md section 22).
 */
import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { page } from '../http/responses.ts';
import { hereOf } from '../http/return_path.ts';
import { enrollTokensPage } from '../views/enroll_tokens.ts';
import type { FilterError, ListTotal } from '../views/list_parts.ts';
import type { Refused } from '../views/form_errors.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ENROLL_TOKENS } from '../lists/pages.ts';
import { COUNT_UP_TO, type CountCache, countCache, countedTotal, wholeList } from '../actions/count_cache.ts';
import { chrome, listQuery, pageFrom } from './page_helpers.ts';
import type { EnrollToken } from '../domain/enroll_tokens.ts';
import { type Page, PAGE_SIZE } from '../domain/paging.ts';

export function enrollTokensList(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokensListHandler(c) {
    // This list's cursor is the public id of the last token shown (tokens have no sequence number).
    const q = listQuery(c, ENROLL_TOKENS);
    if (!q.ok) return enrollTokensAnswer(ctx, c, { error: q.error }, 400);
    return enrollTokensAnswer(ctx, c, { before: q.values.before }, 200);
  };
}

/** The count of outstanding tokens, one cache per server: the list and the refused mint's answer share it. */
const outstandingCounts = new WeakMap<Ctx, CountCache>();

/**
 * How many tokens are outstanding: counted by the store through the list's own partial index up to
 * COUNT_UP_TO, kept a few seconds; a first page that is the whole list is its own count.
 */
function outstandingTotal(ctx: Ctx, read: Page<EnrollToken>, first: boolean): Promise<ListTotal> | ListTotal {
  const whole = wholeList(read, first, ctx.clock.now());
  if (whole !== undefined) return whole;
  let kept = outstandingCounts.get(ctx);
  if (kept === undefined) outstandingCounts.set(ctx, (kept = countCache(ctx.clock)));
  return kept('outstanding', (now) =>
    ctx.store.countOutstandingEnrollTokens(now, COUNT_UP_TO).then((n) => countedTotal(n, now)),
  );
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
  const first = before === undefined && error === undefined;
  const shown = {
    page: tokens,
    accounts,
    first,
    total: error === undefined ? await outstandingTotal(ctx, tokens, first) : undefined,
    from: error === undefined ? pageFrom(c, first) : undefined,
    here: hereOf(c.req.url),
    defaultTtlSeconds: ctx.config.enrollTokenTtlSeconds,
    error,
    refused,
  };
  return page(c, enrollTokensPage(chrome(ctx, c), shown), status);
}
