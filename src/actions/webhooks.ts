/**
 * Webhook endpoints (docs/contract.md section 13), admin only: add one (its secret shown once),
 * show it with its latest attempts, test, enable, disable, delete, rotate its secret, redeliver a
 * message. Each change is audited; a secret never enters a record.
 */
import { randomToken } from '../crypto/random.ts';
import { seal } from '../crypto/sealed.ts';
import type { Actor } from '../domain/accounts.ts';
import { DELIVERY_ID, WEBHOOK_ID, type Webhook, type WebhookAttempt } from '../domain/webhooks.ts';
import { eventNamed, EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import { newSecret } from '../webhooks/sign.ts';
import { checkUrl } from '../webhooks/target.ts';
import { actedBy, type ActionDeps } from './deps.ts';

export interface WebhookDeps extends ActionDeps<
  | 'createWebhook'
  | 'webhooks'
  | 'webhook'
  | 'webhookAttempts'
  | 'enableWebhook'
  | 'disableWebhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'redeliver'
  | 'enqueueTo'
> {
  /** The key secrets are sealed with (webhooks/key.ts). */
  sealKey: Buffer;
  /** PADDOCK_WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
}

/** At most this many endpoints; the list is one page. */
export const MAX_WEBHOOKS = 100;
/** Attempts shown on an endpoint's page. */
export const ATTEMPTS_SHOWN = 50;
const DESCRIPTION = /^[^\x00-\x1f\x7f]{0,200}$/;

export type WebhookFailure = 'badUrl' | 'badEvents' | 'badDescription' | 'tooManyWebhooks';
export type CreateOutcome =
  { ok: true; webhook: Webhook; secret: string } | { ok: false; failure: WebhookFailure; reason: string };

/** `*` or the names webhooks may subscribe to, each once, at least one. */
export function readEvents(names: readonly string[]): string[] | undefined {
  const events = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  if (events.length === 0 || events.length > 64) return undefined;
  for (const name of events) if (name !== '*' && eventNamed(name)?.webhook === undefined) return undefined;
  return events;
}

export async function createWebhook(
  deps: WebhookDeps,
  actor: Actor,
  input: { url: string; events: readonly string[]; description: string },
): Promise<CreateOutcome> {
  const url = checkUrl(input.url.trim(), deps.allowPrivate);
  if (!url.ok) return { ok: false, failure: 'badUrl', reason: url.reason };
  const events = readEvents(input.events);
  if (!events)
    return {
      ok: false,
      failure: 'badEvents',
      reason: 'name at least one event webhooks carry, or * for all of them',
    };
  const description = input.description.trim();
  if (!DESCRIPTION.test(description))
    return { ok: false, failure: 'badDescription', reason: 'the description is at most 200 characters on one line' };
  if ((await deps.store.webhooks(MAX_WEBHOOKS)).length >= MAX_WEBHOOKS)
    return { ok: false, failure: 'tooManyWebhooks', reason: `at most ${MAX_WEBHOOKS} endpoints` };
  const secret = newSecret();
  const webhook = await deps.store.createWebhook({
    id: `wh_${randomToken(12)}`,
    url: url.url.href,
    events,
    description,
    sealedSecret: seal(deps.sealKey, secret),
    createdAt: deps.clock.now(),
    createdBy: actor.subject,
  });
  await deps.logger.emit(EVENTS.webhookCreated, {
    ...actedBy(actor),
    webhook: webhook.id,
    url: webhook.url,
    events: events.join(' '),
  });
  return { ok: true, webhook, secret };
}

export function listWebhooks(deps: WebhookDeps): Promise<Webhook[]> {
  return deps.store.webhooks(MAX_WEBHOOKS);
}

export async function showWebhook(
  deps: WebhookDeps,
  id: string,
): Promise<{ webhook: Webhook; attempts: WebhookAttempt[] } | undefined> {
  const webhook = WEBHOOK_ID.test(id) ? await deps.store.webhook(id) : undefined;
  if (!webhook) return undefined;
  return { webhook, attempts: await deps.store.webhookAttempts(id, ATTEMPTS_SHOWN) };
}

export type WebhookOutcome = 'done' | 'unchanged' | 'unknown';

/** Queues a webhook.test message for this endpoint alone (enabled or not: it is sent once enabled). */
export async function testWebhook(deps: WebhookDeps, actor: Actor, id: string): Promise<'done' | 'unknown'> {
  if (!WEBHOOK_ID.test(id)) return 'unknown';
  const fields = { ...actedBy(actor), webhook: id };
  if (!(await deps.store.enqueueTo(id, note(EVENTS.webhookTest, fields, deps.clock.now())))) return 'unknown';
  await deps.logger.emit(EVENTS.webhookTest, fields);
  return 'done';
}

export async function enableWebhook(deps: WebhookDeps, actor: Actor, id: string): Promise<WebhookOutcome> {
  if (!WEBHOOK_ID.test(id) || !(await deps.store.webhook(id))) return 'unknown';
  if (!(await deps.store.enableWebhook(id))) return 'unchanged';
  await deps.logger.emit(EVENTS.webhookEnabled, { ...actedBy(actor), webhook: id });
  return 'done';
}

export async function disableWebhook(deps: WebhookDeps, actor: Actor, id: string): Promise<WebhookOutcome> {
  if (!WEBHOOK_ID.test(id) || !(await deps.store.webhook(id))) return 'unknown';
  if (!(await deps.store.disableWebhook(id))) return 'unchanged';
  await deps.logger.emit(EVENTS.webhookDisabled, { ...actedBy(actor), webhook: id });
  return 'done';
}

export async function deleteWebhook(deps: WebhookDeps, actor: Actor, id: string): Promise<'done' | 'unknown'> {
  if (!WEBHOOK_ID.test(id) || !(await deps.store.deleteWebhook(id))) return 'unknown';
  await deps.logger.emit(EVENTS.webhookDeleted, { ...actedBy(actor), webhook: id });
  return 'done';
}

/** A new secret, shown once; the old one signs too for 24 hours. */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
): Promise<{ secret: string } | 'unknown'> {
  if (!WEBHOOK_ID.test(id)) return 'unknown';
  const secret = newSecret();
  if (!(await deps.store.rotateWebhookSecret(id, seal(deps.sealKey, secret), deps.clock.now()))) return 'unknown';
  await deps.logger.emit(EVENTS.webhookSecretRotated, { ...actedBy(actor), webhook: id });
  return { secret };
}

/** Sends a delivery's message again from the start of the schedule, with the same message id. */
export async function redeliverMessage(
  deps: WebhookDeps,
  actor: Actor,
  input: { id: string; delivery: string },
): Promise<'done' | 'unknown'> {
  if (!WEBHOOK_ID.test(input.id) || !DELIVERY_ID.test(input.delivery)) return 'unknown';
  const message = await deps.store.redeliver(input.id, Number(input.delivery), deps.clock.now());
  if (message === undefined) return 'unknown';
  await deps.logger.emit(EVENTS.webhookRedelivered, { ...actedBy(actor), webhook: input.id, message });
  return 'done';
}
