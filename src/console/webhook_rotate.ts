/**
 * POST /webhooks/{id}/rotate-secret: admin only. Replaces the endpoint's signing secret and shows
 * the new one on this answer only (the old one signs too for 24 hours). Audited, never the secret.
 */
import type { Handler } from 'hono';
import { rotateWebhookSecret } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { webhookSecretPage } from '../views/webhook_secret.ts';
import { actor, chrome } from './page_helpers.ts';

export function webhookRotate(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookRotateHandler(c) {
    const id = c.req.param('id') ?? '';
    const rotated = deps ? await rotateWebhookSecret(deps, actor(c), id) : 'unknown';
    const webhook = rotated === 'unknown' ? undefined : await ctx.store.webhook(id);
    if (rotated === 'unknown' || !webhook) return fail(c, 'webhookNotFound');
    return page(c, webhookSecretPage(chrome(ctx, c), { webhook, secret: rotated.secret, rotated: true }));
  };
}
