/**
 * POST /enroll-tokens/{id}/revoke: admin only. Revokes an outstanding token by its public id; it
 * enrolls nothing more. An unknown id, or one no longer outstanding, is 404. Logged. 303 to the
 * list, or to the list's `return` (docs/contract.md section 22).
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { revokeEnrollToken } from '../actions/enroll_tokens.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function enrollTokenRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokenRevokeHandler(c) {
    const id = c.req.param('id') ?? '';
    if (!(await revokeEnrollToken(ctx, actor(c), id))) return fail(c, 'enrollTokenNotFound');
    setNotice(ctx, c, { kind: 'token-revoked', token: id });
    return seeOther(c, backTo(c.get('form').get('return'), '/enroll-tokens'));
  };
}
