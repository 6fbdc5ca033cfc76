/**
 * POST /webhooks/{id}/test: admin only. Queues a `webhook.test` message for this endpoint alone
 * (sent once it is enabled), then 303 to its page. Audited.
 */
import type { Handler } from 'hono';
import { testWebhook } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { webhookPath } from '../views/webhooks.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function webhookTest(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookTestHandler(c) {
    const id = c.req.param('id') ?? '';
    if (!deps || (await testWebhook(deps, actor(c), id)) === 'unknown') return fail(c, 'webhookNotFound');
    setNotice(ctx, c, { kind: 'webhook-tested', webhook: id });
    return seeOther(c, webhookPath(id));
  };
}
