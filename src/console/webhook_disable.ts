/**
 * POST /webhooks/{id}/disable: admin only. Disables the endpoint (its deliveries wait until it is enabled again), then 303 to
 * its page; an endpoint already so changes nothing. Audited when it changed.
 */
import type { Handler } from 'hono';
import { disableWebhook } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { webhookPath } from '../views/webhooks.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function webhookDisable(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookDisableHandler(c) {
    const id = c.req.param('id') ?? '';
    const outcome = deps ? await disableWebhook(deps, actor(c), id) : 'unknown';
    if (outcome === 'unknown') return fail(c, 'webhookNotFound');
    setNotice(ctx, c, { kind: outcome === 'done' ? 'webhook-disabled' : 'webhook-unchanged', webhook: id });
    return seeOther(c, webhookPath(id));
  };
}
