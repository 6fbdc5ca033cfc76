/**
 * POST /webhooks/{id}/delete: admin only. Deletes the endpoint with its deliveries, then 303 to
 * /webhooks, or to the list's `return` (docs/contract.md section 22). Audited. Its confirmation page
 * is GET /webhooks/{id}/delete (webhook_delete_confirm.ts).
 */
import type { Handler } from 'hono';
import { deleteWebhook } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function webhookDelete(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookDeleteHandler(c) {
    const id = c.req.param('id') ?? '';
    if (!deps || (await deleteWebhook(deps, actor(c), id)) === 'unknown') return fail(c, 'webhookNotFound');
    setNotice(ctx, c, { kind: 'webhook-deleted', webhook: id });
    return seeOther(c, backTo(c.get('form').get('return'), '/webhooks'));
  };
}
