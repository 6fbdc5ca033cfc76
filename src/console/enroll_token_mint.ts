/**
 * POST /enroll-tokens: admin only. Mints a token with the optional fields of docs/contract.md section 9
 * and shows its link once; the token never goes into a URL or a log record.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { mintResultPage } from '../views/mint_result.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { mintEnrollToken } from '../actions/enroll_tokens.ts';
import { actor, chrome } from './page_helpers.ts';

export function enrollTokenMint(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokenMintHandler(c) {
    const minted = await mintEnrollToken(ctx, actor(c), c.get('form'));
    if (!minted.ok) return fail(c, minted.failure, minted.detail);
    return page(c, mintResultPage(chrome(ctx, c), { link: minted.link, token: minted.token }));
  };
}
