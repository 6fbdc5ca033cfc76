/** GET /webhooks/{id}: admin only. One endpoint and its latest delivery attempts; an unknown id is 404. */
import type { Handler } from 'hono';
import { showWebhook } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { webhookPage } from '../views/webhook.ts';
import { chrome } from './page_helpers.ts';

export function webhookShow(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookShowHandler(c) {
    const shown = deps && (await showWebhook(deps, c.req.param('id') ?? ''));
    if (!shown) return fail(c, 'webhookNotFound');
    return page(c, webhookPage(chrome(ctx, c), shown));
  };
}
