/**
 * POST /tokens: any account. Creates a personal access token (docs/contract.md section 11) with the
 * account's rights as they are now (actions/access_tokens.ts), and shows the token on this answer
 * only: it never goes into a URL, a log record or a later page.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { accessTokenResultPage } from '../views/access_token_result.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { createAccessToken } from '../actions/access_tokens.ts';
import { actor, chrome } from './page_helpers.ts';

export function accessTokenCreate(ctx: Ctx): Handler<UiEnv> {
  return async function accessTokenCreateHandler(c) {
    const form = c.get('form');
    const created = await createAccessToken(ctx, actor(c), {
      name: form.get('name') ?? '',
      expiresIn: form.get('expires_in') ?? '',
      scope: form.get('scope'),
    });
    if (!created.ok) return fail(c, created.failure);
    return page(c, accessTokenResultPage(chrome(ctx, c), { token: created.token, record: created.record }));
  };
}
