/**
 * POST /webhooks: admin only. Adds an endpoint from the form's `url`, `event` (repeated; `*` for
 * all) and `description`, and shows its signing secret on this answer only: it never goes into a
 * URL, a log record or a later page. A refused field is answered 400 with the webhooks page, the
 * form filled in as sent (docs/contract.md section 22); with as many endpoints as allowed, 409.
 */
import type { Handler } from 'hono';
import { createWebhook, type WebhookFailure } from '../actions/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { WEBHOOK_FAILURES, webhookDeps } from '../context/webhooks.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { webhookSecretPage } from '../views/webhook_secret.ts';
import { actor, chrome, refusedForm } from './page_helpers.ts';
import { webhooksAnswer } from './webhooks_list.ts';

/** The form's field each refusal is about (the API names the events `events`); none: too many endpoints. */
const FIELD: Readonly<Record<WebhookFailure, string | undefined>> = {
  badUrl: 'url',
  badEvents: 'event',
  badDescription: 'description',
  tooManyWebhooks: undefined,
};

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
    if (!created.ok) {
      const field = FIELD[created.failure];
      const failure = WEBHOOK_FAILURES[created.failure];
      if (field === undefined) return fail(c, failure, created.reason);
      // Only a URL's reason says more than the failure's message (which host, which scheme).
      const detail = created.failure === 'badUrl' ? created.reason : undefined;
      return webhooksAnswer(ctx, c, deps, refusedForm(c, field, failure, detail), 400);
    }
    return page(
      c,
      webhookSecretPage(chrome(ctx, c), { webhook: created.webhook, secret: created.secret, rotated: false }),
    );
  };
}
