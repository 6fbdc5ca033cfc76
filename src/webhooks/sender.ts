/**
 * The webhook sender (docs/contract.md section 13): off the request path, it claims due
 * deliveries from the outbox (at most `concurrency` in flight, whatever the endpoints do), signs
 * and sends each, and records the attempt and what follows in one transaction: delivered, a
 * retry after RETRY_DELAYS_MS, or failed once the schedule is spent. An endpoint failing for
 * PADDOCK_WEBHOOK_DISABLE_AFTER is disabled (audited, as `system`). It also prunes finished
 * deliveries past PADDOCK_WEBHOOK_RETENTION.
 *
 * It hears the event bus: an event webhooks may carry was committed with its message, so the
 * sender looks at once instead of at its next poll.
 */
import type { Clock } from '../clock.ts';
import { unseal } from '../crypto/sealed.ts';
import { CLAIM_MS, type ClaimedDelivery, RETRY_DELAYS_MS, ROTATION_OVERLAP_MS } from '../domain/webhooks.ts';
import type { Subscriber } from '../events/bus.ts';
import { EVENTS } from '../events/catalogue.ts';
import { messageBody } from '../events/note.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { version } from '../version.ts';
import { keepAliveAgents, send } from './send.ts';
import { signature } from './sign.ts';
import { checkUrl } from './target.ts';

export interface SenderOptions {
  store: Pick<Store, 'claimDeliveries' | 'finishAttempt' | 'pruneWebhooks'>;
  logger: Logger;
  clock: Clock;
  /** The key the secrets are sealed with (webhooks/key.ts). */
  sealKey: Buffer;
  allowPrivate: boolean;
  disableAfterMs: number;
  retentionMs: number;
  /** Attempts in flight at most (default 8). */
  concurrency?: number;
  /** How often it looks when nothing pokes it (default 1 s). */
  pollMs?: number;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** Tests: a shorter schedule, a CA for a self-signed receiver. */
  retryDelaysMs?: readonly number[];
  ca?: string;
}

export interface Sender {
  start(): void;
  /** Stops looking and waits for the attempts in flight. */
  stop(): Promise<void>;
  /** Looks for due deliveries now. */
  poke(): void;
  /** Resolves once no attempt is in flight and none was due at the last look. */
  idle(): Promise<void>;
  subscriber: Subscriber;
}

const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 500;

export function webhookSender(opts: SenderOptions): Sender {
  const { store, logger, clock } = opts;
  const concurrency = opts.concurrency ?? 8;
  const delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
  const inFlight = new Set<Promise<void>>();
  const agents = keepAliveAgents(concurrency);
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let lastPrune = 0;

  async function look(): Promise<void> {
    do {
      again = false;
      const room = concurrency - inFlight.size;
      if (room <= 0 || stopped) return;
      let claimed: ClaimedDelivery[];
      try {
        claimed = await store.claimDeliveries(clock.now(), room, CLAIM_MS);
      } catch (err) {
        await logger.emit(EVENTS.webhookFailed, { error: `claim: ${(err as Error).message}` });
        return;
      }
      for (const delivery of claimed) {
        const attempt = deliver(delivery).finally(() => {
          inFlight.delete(attempt);
          poke();
        });
        inFlight.add(attempt);
      }
      if (claimed.length === room) again = true;
    } while (again);
    await prune();
  }

  async function prune(): Promise<void> {
    const now = clock.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    try {
      await store.pruneWebhooks(now - opts.retentionMs, PRUNE_BATCH);
    } catch (err) {
      await logger.emit(EVENTS.webhookFailed, { error: `prune: ${(err as Error).message}` });
    }
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const at = clock.now();
    const secrets = [unseal(opts.sealKey, d.sealedSecret)];
    if (d.sealedPrevious !== null && d.rotatedAt !== null && d.rotatedAt > at - ROTATION_OVERLAP_MS)
      secrets.push(unseal(opts.sealKey, d.sealedPrevious));
    const body = messageBody(d.event, d.data, d.createdAt);
    const timestamp = Math.floor(at / 1000);
    const target = checkUrl(d.url, opts.allowPrivate);
    const result = target.ok
      ? await send(
          target.url,
          {
            'user-agent': `Paddock-Webhooks/${version}`,
            'webhook-id': d.message,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signature(secrets, d.message, timestamp, body),
          },
          body,
          {
            allowPrivate: opts.allowPrivate,
            ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
            ...(opts.ca === undefined ? {} : { ca: opts.ca }),
            agents,
          },
        )
      : { error: `refused: ${target.reason}`, durationMs: 0 };
    const statusCode = 'statusCode' in result ? result.statusCode : null;
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const delay = delays[d.attempt - 1];
    const disableIfFailingSince = clock.now() - opts.disableAfterMs;
    const next = ok
      ? ({ kind: 'delivered' } as const)
      : delay === undefined
        ? ({ kind: 'failed', disableIfFailingSince } as const)
        : ({ kind: 'retry', at: clock.now() + delay, disableIfFailingSince } as const);
    const outcome = ok ? 'delivered' : next.kind === 'failed' ? 'failed' : 'retrying';
    try {
      const { disabled } = await store.finishAttempt(
        {
          seq: d.seq,
          attempt: d.attempt,
          endpoint: d.endpoint,
          at,
          statusCode,
          error: 'error' in result ? result.error : null,
          durationMs: result.durationMs,
        },
        next,
      );
      await logger.emit(EVENTS.webhookAttempted, {
        webhook: d.endpoint,
        type: d.event,
        message: d.message,
        outcome,
        ...(statusCode === null ? {} : { status: statusCode }),
        ...('error' in result ? { error: result.error } : {}),
      });
      if (disabled)
        await logger.emit(EVENTS.webhookDisabled, { account: 'system', webhook: d.endpoint, reason: 'failing' });
    } catch (err) {
      // The claim lapses and another look retries the attempt: at least once.
      await logger.emit(EVENTS.webhookFailed, { error: `attempt: ${(err as Error).message}` });
    }
  }

  function poke(): void {
    if (stopped) return;
    if (looking) {
      again = true;
      return;
    }
    looking = look().finally(() => {
      looking = undefined;
      if (again) poke();
    });
  }

  return {
    start() {
      stopped = false;
      timer = setInterval(poke, opts.pollMs ?? 1000);
      timer.unref();
      poke();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await looking;
      await Promise.all(inFlight);
      agents.http.destroy();
      agents.https.destroy();
    },
    poke,
    async idle() {
      while (looking || inFlight.size > 0) {
        await looking;
        await Promise.all(inFlight);
      }
    },
    subscriber: {
      hear(event) {
        if (event.webhook !== undefined || event === EVENTS.webhookRedelivered || event === EVENTS.webhookEnabled)
          poke();
      },
    },
  };
}
