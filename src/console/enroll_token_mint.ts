/**
 * POST /enroll-tokens: admin only. Mints a token with the optional fields of docs/contract.md section 9
 * and shows its link once; the token never goes into a URL or a log record. A bad field is
 * answered 400 with the tokens page, the form filled in as sent (section 22).
 */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { mintResultPage } from '../views/mint_result.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { mintEnrollToken } from '../actions/enroll_tokens.ts';
import { MINT_FIELD } from '../actions/enroll_token_fields.ts';
import { enrollTokensAnswer } from './enroll_tokens_list.ts';
import { actor, chrome, refusedForm } from './page_helpers.ts';

export function enrollTokenMint(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokenMintHandler(c) {
    const minted = await mintEnrollToken(ctx, actor(c), c.get('form'));
    if (!minted.ok) {
      const refused = refusedForm(c, MINT_FIELD[minted.failure], minted.failure, minted.detail);
      return enrollTokensAnswer(ctx, c, { refused }, 400);
    }
    return page(c, mintResultPage(chrome(ctx, c), { link: minted.link, token: minted.token }));
  };
}
