/**
 * GET /webhooks/{id}/delete (docs/contract.md sections 13 and 22): admin only, as the action. What
 * deleting the endpoint does, with the form that posts to POST /webhooks/{id}/delete; an unknown
 * endpoint answers the action's own 404.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { webhookDeps } from '../context/webhooks.ts';
import { WEBHOOK_ID } from '../domain/webhooks.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { queryReturn } from '../http/return_path.ts';
import { confirmPage, returnField } from '../views/confirm.ts';
import { html } from '../views/html.ts';
import { eventsText, webhookPath } from '../views/webhooks.ts';
import { chrome } from './page_helpers.ts';

export function webhookDeleteConfirm(ctx: Ctx): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return async function webhookDeleteConfirmHandler(c) {
    const id = c.req.param('id') ?? '';
    const webhook = deps && WEBHOOK_ID.test(id) ? await deps.store.webhook(id) : undefined;
    if (!webhook) return fail(c, 'webhookNotFound');
    const back = queryReturn(c.req.url, '/webhooks');
    const path = webhookPath(id);
    return page(
      c,
      confirmPage(chrome(ctx, c), {
        title: `Delete webhook ${id}?`,
        consequence: html`Deleting the endpoint <code>${webhook.url}</code> (${eventsText(webhook.events)}) deletes it
          with every delivery recorded for it: messages not yet delivered are never sent.`,
        undo: true,
        action: `${path}/delete`,
        fields: returnField(back),
        button: 'Delete 1 webhook endpoint',
        cancel:
          back === undefined ? { href: path, text: 'Back to the webhook' } : { href: back, text: 'Back to the list' },
      }),
    );
  };
}
