/** GET /webhooks: admin only. The webhook endpoints and the form to add one (docs/contract.md section 13). */
import type { Handler } from 'hono';
import { listWebhooks, MAX_WEBHOOKS } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { webhooksPage } from '../views/webhooks.ts';
import { chrome } from './page_helpers.ts';

export function webhooksList(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhooksListHandler(c) {
    if (!deps) return fail(c, 'notFound');
    return page(c, webhooksPage(chrome(ctx, c), { webhooks: await listWebhooks(deps), max: MAX_WEBHOOKS }));
  };
}
