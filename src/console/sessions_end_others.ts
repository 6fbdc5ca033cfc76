/** POST /sessions/end-others: any account. Ends all its live sessions but the one asking. */
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { endOtherSessions } from '../actions/accounts.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function sessionsEndOthers(ctx: Ctx): Handler<UiEnv> {
  return async function sessionsEndOthersHandler(c) {
    const ended = await endOtherSessions(ctx, actor(c), c.get('session').id);
    setNotice(ctx, c, { kind: 'sessions-ended', count: ended });
    return seeOther(c, '/sessions');
  };
}
