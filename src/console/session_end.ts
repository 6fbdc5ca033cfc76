/**
 * POST /sessions/{id}/end: any account, its own sessions only (an admin too: another account's
 * session is 404 here, as an unknown one). The session is refused by every instance from now on.
 * 303 to the list, or to the list's `return` (docs/contract.md section 22).
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { endSession } from '../actions/accounts.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function sessionEnd(ctx: Ctx): Handler<UiEnv> {
  return async function sessionEndHandler(c) {
    if (!(await endSession(ctx, actor(c), c.req.param('id') ?? ''))) return fail(c, 'sessionNotFound');
    setNotice(ctx, c, { kind: 'session-ended' });
    return seeOther(c, backTo(c.get('form').get('return'), '/sessions'));
  };
}
