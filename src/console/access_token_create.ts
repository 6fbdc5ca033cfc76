/**
 * POST /tokens: any account. Creates a personal access token (docs/contract.md section 11) with the
 * account's rights as they are now (actions/access_tokens.ts), and shows the token on this answer
 * only: it never goes into a URL, a log record or a later page. A bad field is answered 400 with
 * the tokens page, the form filled in as sent (section 22); the scim scope asked by a non-admin is
 * a refusal of a right, not a bad value: 403, plain text.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { accessTokenResultPage } from '../views/access_token_result.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ACCESS_TOKEN_FIELD, createAccessToken } from '../actions/access_tokens.ts';
import { accessTokensAnswer } from './access_tokens_list.ts';
import { actor, chrome, refusedForm } from './page_helpers.ts';

export function accessTokenCreate(ctx: Ctx): Handler<UiEnv> {
  return async function accessTokenCreateHandler(c) {
    const form = c.get('form');
    const created = await createAccessToken(ctx, actor(c), {
      name: form.get('name') ?? '',
      expiresIn: form.get('expires_in') ?? '',
      scope: form.get('scope'),
    });
    if (!created.ok) {
      const { failure } = created;
      if (failure === 'scimTokenNotAdmin') return fail(c, failure);
      const refused = refusedForm(c, ACCESS_TOKEN_FIELD[failure], failure);
      return accessTokensAnswer(ctx, c, { refused }, 400);
    }
    return page(c, accessTokenResultPage(chrome(ctx, c), { token: created.token, record: created.record }));
  };
}
