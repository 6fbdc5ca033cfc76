/**
 * POST /webhooks: admin only. Adds an endpoint from the form's `url`, `event` (repeated; `*` for
 * all) and `description`, and shows its signing secret on this answer only: it never goes into a
 * URL, a log record or a later page. A refused field is a plain-text 400 naming it.
 */
import type { Handler } from 'hono';
import { createWebhook } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { WEBHOOK_FAILURES, webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { webhookSecretPage } from '../views/webhook_secret.ts';
import { actor, chrome } from './page_helpers.ts';

export function webhookCreate(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookCreateHandler(c) {
    if (!deps) return fail(c, 'notFound');
    const form = c.get('form');
    const created = await createWebhook(deps, actor(c), {
      url: form.get('url') ?? '',
      events: form.all('event'),
      description: form.get('description') ?? '',
    });
    if (!created.ok) return fail(c, WEBHOOK_FAILURES[created.failure], created.reason);
    return page(
      c,
      webhookSecretPage(chrome(ctx, c), { webhook: created.webhook, secret: created.secret, rotated: false }),
    );
  };
}
