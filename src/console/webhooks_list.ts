/** GET /webhooks: admin only. The webhook endpoints and the form to add one (docs/contract.md section 13). */
import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { listWebhooks, MAX_WEBHOOKS, type WebhookDeps } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import type { Refused } from '../views/form_errors.ts';
import { webhooksPage } from '../views/webhooks.ts';
import { chrome } from './page_helpers.ts';

export function webhooksList(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhooksListHandler(c) {
    if (!deps) return fail(c, 'notFound');
    return webhooksAnswer(ctx, c, deps, undefined, 200);
  };
}

/** The page, with the add form filled in as sent when an add was `refused` (POST /webhooks answers with it). */
export async function webhooksAnswer(
  ctx: Ctx,
  c: Context<UiEnv>,
  deps: WebhookDeps,
  refused: Refused | undefined,
  status: ContentfulStatusCode,
): Promise<Response> {
  const webhooks = await listWebhooks(deps);
  return page(c, webhooksPage(chrome(ctx, c), { webhooks, max: MAX_WEBHOOKS, refused }), status);
}
