/**
 * POST /webhooks/{id}/deliveries/{delivery}/redeliver: admin only. Queues that delivery's message
 * again from the start of the schedule, with the same message id, then 303 to the endpoint's
 * page. A delivery of another endpoint, or none, is 404. Audited.
 */
import type { Handler } from 'hono';
import { redeliverMessage } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { webhookPath } from '../views/webhooks.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function webhookRedeliver(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookRedeliverHandler(c) {
    const id = c.req.param('id') ?? '';
    const delivery = c.req.param('delivery') ?? '';
    if (!deps || (await redeliverMessage(deps, actor(c), { id, delivery })) === 'unknown')
      return fail(c, 'deliveryNotFound');
    setNotice(ctx, c, { kind: 'webhook-redelivered', webhook: id });
    return seeOther(c, webhookPath(id));
  };
}
