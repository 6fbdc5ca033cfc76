/**
 * What the doors' webhook handlers share (docs/contract.md section 13): the actions' dependencies
 * from the handlers' Ctx, and the failure each refusal of the add form is answered with.
 * Without the key the secrets are sealed with there are no webhook pages: `undefined`, a 404.
 */
import type { WebhookDeps, WebhookFailure } from '../actions/webhooks.ts';
import type { FailureName } from '../http/failures.ts';
import type { Ctx } from './deps.ts';

export function webhookDeps(ctx: Ctx): WebhookDeps | undefined {
  const { webhookSealKey } = ctx;
  if (webhookSealKey === undefined) return undefined;
  return {
    store: ctx.store,
    logger: ctx.logger,
    clock: ctx.clock,
    sealKey: webhookSealKey,
    allowPrivate: ctx.config.webhookAllowPrivate,
  };
}

/** Each refusal of the add form, its plain-text failure (the API gives its message too). */
export const WEBHOOK_FAILURES: Record<WebhookFailure, FailureName> = {
  badUrl: 'badWebhookUrl',
  badEvents: 'badWebhookEvents',
  badDescription: 'badWebhookDescription',
  tooManyWebhooks: 'tooManyWebhooks',
};
