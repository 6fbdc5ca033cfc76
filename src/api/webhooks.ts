/**
 * Webhook endpoints in the API (docs/contract.md sections 11 and 13), admin tokens only: the same
 * actions as the console's pages (actions/webhooks.ts), so they are checked, logged and audited
 * alike. Adding an endpoint (201) and rotating its secret (200) are the only answers that hold a
 * signing secret; nothing else ever shows one.
 */
import type { Context, Handler } from 'hono';
import {
  createWebhook,
  deleteWebhook,
  disableWebhook,
  enableWebhook,
  listWebhooks,
  redeliverMessage,
  rotateWebhookSecret,
  showWebhook,
  testWebhook,
  type WebhookDeps,
  type WebhookFailure,
  type WebhookOutcome,
} from '../actions/webhooks.ts';
import type { Actor } from '../domain/accounts.ts';
import type { Webhook, WebhookAttempt } from '../domain/webhooks.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { WEBHOOK_FAILURES, webhookDeps } from '../context/webhooks.ts';
import { FAILURES } from '../http/failures.ts';
import { shownAttempt, shownOutcome } from '../webhooks/outcome.ts';
import { apiOperation } from './auth.ts';
import { type FieldType, jsonFields } from './json_body.ts';
import { problem } from './problem.ts';
import { iso } from './resources.ts';

export const WEBHOOK_FIELDS: Record<string, FieldType> = { url: 'string', events: 'strings', description: 'string' };

/** The body field each refusal is about (none: too many endpoints). */
const FIELD: Record<WebhookFailure, string | undefined> = {
  badUrl: 'url',
  badEvents: 'events',
  badDescription: 'description',
  tooManyWebhooks: undefined,
};

/** An endpoint as the API shows it: never its secret. */
export function webhookJson(w: Webhook) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    created_at: iso(w.createdAt),
    created_by: w.createdBy,
    rotated_at: iso(w.rotatedAt),
    failures: w.failures,
    failing_since: iso(w.failingSince),
    last_attempt_at: iso(w.lastAttemptAt),
    last_outcome: shownOutcome(w.lastOutcome),
  };
}

/** An attempt as the API shows it: a failure's class only, without its duration (webhooks/outcome.ts). */
export function attemptJson(a: WebhookAttempt) {
  const shown = shownAttempt(a);
  return {
    delivery: a.delivery,
    message: a.message,
    event: a.event,
    at: iso(a.at),
    status_code: shown.statusCode,
    error: shown.error,
    duration_ms: shown.durationMs,
    status: a.status,
  };
}

const noWebhook = (c: Context) => problem(c, 404, 'not found', 'no such webhook endpoint');

/** An admin operation on webhooks; without the seal key there are none (404). */
function webhookOperation(
  ctx: Ctx,
  what: string,
  handle: (c: Context<UiEnv>, actor: Actor, deps: WebhookDeps) => Promise<Response>,
): Handler<UiEnv> {
  const deps = webhookDeps(ctx);
  return apiOperation(ctx, { admin: what }, (c, actor) =>
    deps ? handle(c, actor, deps) : Promise.resolve(noWebhook(c)),
  );
}

export function apiWebhooksList(ctx: Ctx): Handler<UiEnv> {
  return webhookOperation(ctx, 'listing webhook endpoints', async (c, _actor, deps) =>
    c.json({ items: (await listWebhooks(deps)).map(webhookJson) }),
  );
}

export function apiWebhookCreate(ctx: Ctx): Handler<UiEnv> {
  return webhookOperation(ctx, 'adding a webhook endpoint', async (c, actor, deps) => {
    const body = await jsonFields(c, WEBHOOK_FIELDS, ['url', 'events']);
    if (!body.ok) return body.response;
    const created = await createWebhook(deps, actor, {
      url: body.fields.get('url') ?? '',
      events: body.lists.get('events') ?? [],
      description: body.fields.get('description') ?? '',
    });
    if (!created.ok) {
      const field = FIELD[created.failure];
      const { status, message } = FAILURES[WEBHOOK_FAILURES[created.failure]];
      return problem(
        c,
        status,
        field ? 'bad field' : 'conflict',
        `${message}: ${created.reason}`,
        field ? { field } : {},
      );
    }
    return c.json({ webhook: webhookJson(created.webhook), secret: created.secret }, 201);
  });
}

export function apiWebhookGet(ctx: Ctx): Handler<UiEnv> {
  return webhookOperation(ctx, 'reading a webhook endpoint', async (c, _actor, deps) => {
    const shown = await showWebhook(deps, c.req.param('id') ?? '');
    if (!shown) return noWebhook(c);
    return c.json({ webhook: webhookJson(shown.webhook), attempts: shown.attempts.map(attemptJson) });
  });
}

export function apiWebhookTest(ctx: Ctx): Handler<UiEnv> {
  return webhookOperation(ctx, 'testing a webhook endpoint', async (c, actor, deps) =>
    (await testWebhook(deps, actor, c.req.param('id') ?? '')) === 'unknown' ? noWebhook(c) : c.body(null, 204),
  );
}

/** Enable or disable: the endpoint as it is afterwards (unchanged when it already was so). */
function switchWebhook(
  ctx: Ctx,
  what: string,
  act: (deps: WebhookDeps, actor: Actor, id: string) => Promise<WebhookOutcome>,
): Handler<UiEnv> {
  return webhookOperation(ctx, what, async (c, actor, deps) => {
    const id = c.req.param('id') ?? '';
    const webhook = (await act(deps, actor, id)) === 'unknown' ? undefined : await deps.store.webhook(id);
    return webhook ? c.json(webhookJson(webhook)) : noWebhook(c);
  });
}

export const apiWebhookEnable = (ctx: Ctx) => switchWebhook(ctx, 'enabling a webhook endpoint', enableWebhook);
export const apiWebhookDisable = (ctx: Ctx) => switchWebhook(ctx, 'disabling a webhook endpoint', disableWebhook);

export function apiWebhookDelete(ctx: Ctx): Handler<UiEnv> {
  return webhookOperation(ctx, 'deleting a webhook endpoint', async (c, actor, deps) =>
    (await deleteWebhook(deps, actor, c.req.param('id') ?? '')) === 'unknown' ? noWebhook(c) : c.body(null, 204),
  );
}

export function apiWebhookRotate(ctx: Ctx): Handler<UiEnv> {
  return webhookOperation(ctx, "replacing a webhook endpoint's secret", async (c, actor, deps) => {
    const rotated = await rotateWebhookSecret(deps, actor, c.req.param('id') ?? '');
    return rotated === 'unknown' ? noWebhook(c) : c.json({ secret: rotated.secret });
  });
}

export function apiWebhookRedeliver(ctx: Ctx): Handler<UiEnv> {
  return webhookOperation(ctx, 'redelivering a webhook message', async (c, actor, deps) => {
    const input = { id: c.req.param('id') ?? '', delivery: c.req.param('delivery') ?? '' };
    if ((await redeliverMessage(deps, actor, input)) === 'unknown')
      return problem(c, 404, 'not found', 'no such delivery of this webhook endpoint');
    return c.body(null, 204);
  });
}
