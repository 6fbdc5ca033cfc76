/**
 * The webhook sender (docs/contract.md section 13): off the request path, it claims due
 * deliveries from the outbox (at most `concurrency` in flight, whatever the endpoints do), signs
 * and sends each, and records the attempt and what follows in one transaction: delivered, a
 * retry after RETRY_DELAYS_MS, or failed once the schedule is spent. An endpoint failing for
 * PADDOCK_WEBHOOK_DISABLE_AFTER is disabled (audited, as `system`). It also prunes finished
 * deliveries past PADDOCK_WEBHOOK_RETENTION. The answers that arrive together are recorded in one
 * transaction (each attempt's statements as before, one commit).
 *
 * Uploads come first (docs/decisions.md): it shares the server's one thread, so while the event
 * loop is busy (webhooks/load.ts) it has at most `busyBatch` attempts in flight and claims at most
 * once per `busyPauseMs`: a minimum rate, so deliveries never stop; the outbox-age metric shows
 * the lag that builds up meanwhile.
 *
 * It hears the event bus: an event webhooks may carry was committed with its message, so the
 * sender looks at once instead of at its next poll.
 */
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { unseal } from '../crypto/sealed.ts';
import { CLAIM_MS, type ClaimedDelivery, RETRY_DELAYS_MS, ROTATION_OVERLAP_MS } from '../domain/webhooks.ts';
import type { Subscriber } from '../events/bus.ts';
import { EVENTS } from '../events/catalogue.ts';
import { messageBody } from '../events/note.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { version } from '../version.ts';
import { eventLoopGauge, type LoadGauge } from './load.ts';
import { keepAliveAgents, send } from './send.ts';
import { signature, signingKey } from './sign.ts';
import { checkUrl } from './target.ts';

export interface SenderOptions {
  store: Pick<Store, 'claimDeliveries' | 'finishAttempts' | 'pruneWebhooks'>;
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
  /** Whether the server is busy (default: its event loop, less the sender's own work: webhooks/load.ts). */
  load?: LoadGauge;
  /** While busy: at most this many deliveries claimed (default 4)… */
  busyBatch?: number;
  /** …once per this many milliseconds (default 100): the minimum rate, so deliveries never stop. */
  busyPauseMs?: number;
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

type Finished = Parameters<Store['finishAttempts']>[0][number];

const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 500;
/** Signing keys kept at most (twice an endpoint's during a rotation). */
const KEYS_KEPT = 256;

export function webhookSender(opts: SenderOptions): Sender {
  const { store, logger, clock } = opts;
  const concurrency = opts.concurrency ?? 8;
  const delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
  const inFlight = new Set<Promise<void>>();
  const agents = keepAliveAgents(concurrency);
  const busyBatch = opts.busyBatch ?? 4;
  const busyPauseMs = opts.busyPauseMs ?? 100;
  let load: LoadGauge | undefined;
  /** While busy, no claim before this (performance.now()); `wake` looks again then. */
  let busyUntil = 0;
  let wake: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let lastPrune = 0;
  const waiting: Array<Finished & { resolve: (disabled: boolean) => void; reject: (err: unknown) => void }> = [];
  let writing = false;

  /**
   * Starts `work` and reports the time until it returned (its synchronous part: on SQLite the
   * whole statement) as the sender's own, so the load gauge does not count it as the server's.
   */
  function timed<T>(work: () => T): T {
    const started = performance.now();
    try {
      return work();
    } finally {
      load?.spent(performance.now() - started);
    }
  }

  async function look(): Promise<void> {
    do {
      again = false;
      let room = concurrency - inFlight.size;
      if (room <= 0 || stopped) return;
      // Uploads come first (docs/decisions.md): while the loop is busy, a few deliveries at a time.
      const busy = load?.busy() ?? false;
      if (busy) {
        const now = performance.now();
        if (now < busyUntil) {
          wake ??= setTimeout(() => {
            wake = undefined;
            poke();
          }, busyUntil - now);
          return;
        }
        busyUntil = now + busyPauseMs;
        room = Math.min(room, busyBatch - inFlight.size);
        if (room <= 0) return;
      }
      let claimed: ClaimedDelivery[];
      try {
        claimed = await timed(() => store.claimDeliveries(clock.now(), room, CLAIM_MS));
      } catch (err) {
        await logger.emit(EVENTS.webhookFailed, { error: `claim: ${(err as Error).message}` });
        return;
      }
      for (const delivery of claimed) {
        const attempt = timed(() => deliver(delivery)).finally(() => {
          inFlight.delete(attempt);
          poke();
        });
        inFlight.add(attempt);
      }
      if (claimed.length === room && !busy) again = true;
      else if (claimed.length === room) poke();
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

  /**
   * The signing key of a sealed secret, unsealed once and kept while the sender runs: a message is
   * signed for each endpoint, and unsealing and making the key each time cost more than the
   * signature. Keyed by the sealed value, so a rotated secret is a new entry; bounded, since
   * endpoints come and go.
   */
  const keys = new Map<string, KeyObject>();
  function keyOf(sealed: string): KeyObject {
    let key = keys.get(sealed);
    if (key === undefined) {
      if (keys.size >= KEYS_KEPT) keys.clear();
      key = signingKey(unseal(opts.sealKey, sealed));
      keys.set(sealed, key);
    }
    return key;
  }

  async function deliver(d: ClaimedDelivery): Promise<void> {
    const at = clock.now();
    const signing = [keyOf(d.sealedSecret)];
    if (d.sealedPrevious !== null && d.rotatedAt !== null && d.rotatedAt > at - ROTATION_OVERLAP_MS)
      signing.push(keyOf(d.sealedPrevious));
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
            'webhook-signature': signature(signing, d.message, timestamp, body),
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
    const answered = performance.now();
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
    const attempt = {
      seq: d.seq,
      attempt: d.attempt,
      endpoint: d.endpoint,
      at,
      statusCode,
      error: 'error' in result ? result.error : null,
      durationMs: result.durationMs,
    };
    let disabled: boolean;
    try {
      const finishing = finish(attempt, next);
      load?.spent(performance.now() - answered);
      disabled = await finishing;
    } catch (err) {
      // The claim lapses and another look retries the attempt: at least once.
      await logger.emit(EVENTS.webhookFailed, { error: `attempt: ${(err as Error).message}` });
      return;
    }
    await timed(() =>
      logger.emit(EVENTS.webhookAttempted, {
        webhook: d.endpoint,
        type: d.event,
        message: d.message,
        outcome,
        ...(statusCode === null ? {} : { status: statusCode }),
        ...('error' in result ? { error: result.error } : {}),
      }),
    );
    if (disabled)
      await logger.emit(EVENTS.webhookDisabled, { account: 'system', webhook: d.endpoint, reason: 'failing' });
  }

  /**
   * Records an attempt. The answers that arrive while a batch is being written wait and go in the
   * next one, all in one transaction (as group commit): a commit per batch, not per attempt.
   */
  function finish(attempt: Finished['attempt'], next: Finished['next']): Promise<boolean> {
    return new Promise((resolve, reject) => {
      waiting.push({ attempt, next, resolve, reject });
      if (!writing) void writeFinished();
    });
  }

  async function writeFinished(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0);
      try {
        const results = await timed(() => store.finishAttempts(batch.map(({ attempt, next }) => ({ attempt, next }))));
        batch.forEach((w, i) => w.resolve(results[i]?.disabled ?? false));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    writing = false;
  }

  function poke(): void {
    // While busy, a look is already set for when the next claim may be made (`wake`): each upload's
    // run.stored pokes, and looking only to wait again costs every upload.
    if (stopped || wake !== undefined) return;
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
      load = opts.load ?? eventLoopGauge();
      timer = setInterval(poke, opts.pollMs ?? 1000);
      timer.unref();
      poke();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(wake);
      wake = undefined;
      if (opts.load === undefined) load?.stop();
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
