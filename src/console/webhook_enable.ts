/**
 * POST /webhooks/{id}/enable: admin only. Enables the endpoint (its pending deliveries are sent again), then 303 to
 * its page; an endpoint already so changes nothing. Audited when it changed.
 */
import type { Handler } from 'hono';
import { enableWebhook } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { webhookPath } from '../views/webhooks.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function webhookEnable(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookEnableHandler(c) {
    const id = c.req.param('id') ?? '';
    const outcome = deps ? await enableWebhook(deps, actor(c), id) : 'unknown';
    if (outcome === 'unknown') return fail(c, 'webhookNotFound');
    setNotice(ctx, c, { kind: outcome === 'done' ? 'webhook-enabled' : 'webhook-unchanged', webhook: id });
    return seeOther(c, webhookPath(id));
  };
}
