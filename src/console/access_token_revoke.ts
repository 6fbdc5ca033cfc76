/**
 * POST /tokens/{id}/revoke: any account, its own tokens only (an admin too: another account's
 * token is 404 here, as an unknown one). Logged. 303 to the list, or to the list's `return`
 * (docs/contract.md section 22).
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { revokeAccessToken } from '../actions/access_tokens.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function accessTokenRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function accessTokenRevokeHandler(c) {
    const id = c.req.param('id') ?? '';
    if (!(await revokeAccessToken(ctx, actor(c), id))) return fail(c, 'accessTokenNotFound');
    setNotice(ctx, c, { kind: 'access-token-revoked', token: id });
    return seeOther(c, backTo(c.get('form').get('return'), '/tokens'));
  };
}
