/** GET /sessions: any account. Its own live console sessions, this one marked (docs/contract.md section 14). */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { hereOf } from '../http/return_path.ts';
import { sessionsPage } from '../views/sessions.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { chrome } from './page_helpers.ts';

export function sessionsList(ctx: Ctx): Handler<UiEnv> {
  return async function sessionsListHandler(c) {
    const session = c.get('session');
    const sessions = await ctx.store.sessionsOf(session.subject, ctx.clock.now(), session.id);
    return page(c, sessionsPage(chrome(ctx, c), sessions, hereOf(c.req.url)));
  };
}
