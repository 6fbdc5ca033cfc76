/**
 * The minute sweeper: once a minute, the work nobody asks for (docs/contract.md section 9), each
 * job in its own file: audit_prune.ts and, when PADDOCK_REVOKE_STALE_AFTER is set, stale_revoke.ts;
 * collections past their expiry are closed too (actions/collections.ts), what credential
 * rotations kept for their overlap is cleared once it has passed, replaced credentials kept long
 * enough are forgotten, and expired sign-in states go.
 * This file is their timer: each run does both, a failure of one does not stop the other, and a
 * run still going is not doubled. (The retention sweep of runs has its own timer: retention.ts.)
 */
import { noteStale } from './stale_note.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { EVENTS } from '../events/catalogue.ts';
import { pruneAudit } from './audit_prune.ts';
import { revokeStale } from './stale_revoke.ts';
import { expireCollections } from '../actions/collections.ts';

export const SWEEP_EVERY_MS = 60_000;
/** Rows per statement, and statements per run and kind. */
export const SWEEP_BATCH = 500;
export const SWEEP_BATCHES = 10;

export interface SweeperOptions {
  store: Pick<
    Store,
    | 'pruneAudit'
    | 'revokeStale'
    | 'markStale'
    | 'expireCollections'
    | 'cancelDeviceRequests'
    | 'enqueue'
    | 'endOverlaps'
    | 'endReplaced'
    | 'pruneOidcStates'
  >;
  logger: Logger;
  clock: Clock;
  auditRetentionMs: number;
  /** Unset: stale devices are not revoked. */
  revokeStaleAfterMs: number | undefined;
  /** PADDOCK_STALE_AFTER: a device silent this long is sent as device.stale, once (unset: not sent). */
  staleAfterMs?: number;
  batch?: number;
  batches?: number;
}

export interface Sweeper {
  /** One run now; resolves with what it did. */
  sweep(): Promise<{
    pruned: number;
    stale: number;
    revoked: number;
    expired: number;
    overlaps: number;
    states: number;
    /** Replaced credentials kept long enough, forgotten (docs/contract.md section 16, reuse is theft). */
    replaced: number;
  }>;
  /** Starts the timer (unref'd: it never keeps the process alive). */
  start(everyMs?: number): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
  /** When the last run finished (epoch ms), undefined before the first: the metrics' stalled-sweep gauge. */
  finishedAt(): number | undefined;
}

export function sweeper(opts: SweeperOptions): Sweeper {
  const { store, logger, clock } = opts;
  const batch = opts.batch ?? SWEEP_BATCH;
  const batches = opts.batches ?? SWEEP_BATCHES;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let finished: number | undefined;

  async function sweep() {
    // Each kind is tried even when the other fails: a store error is logged and the next run retries.
    const sizes = { batch, batches };
    const pruned = await pruneAudit({ store, clock }, opts.auditRetentionMs, sizes).catch((err: unknown) =>
      failed('prune audit', err),
    );
    const staleAfterMs = opts.revokeStaleAfterMs;
    const revoked =
      staleAfterMs === undefined
        ? 0
        : await revokeStale({ store, logger, clock }, staleAfterMs, sizes).catch((err: unknown) =>
            failed('revoke stale devices', err),
          );
    const staleNoteAfter = opts.staleAfterMs;
    const stale =
      staleNoteAfter === undefined
        ? 0
        : await noteStale({ store, logger, clock }, staleNoteAfter, sizes).catch((err: unknown) =>
            failed('note stale devices', err),
          );
    // docs/contract.md section 15: the open targets of collections past their expiry.
    const expired = await expireCollections({ store, logger, clock }, batch).catch((err: unknown) =>
      failed('expire collections', err),
    );
    // docs/contract.md section 16: what rotations kept for their overlap, once it has passed.
    const overlaps = await store.endOverlaps(clock.now(), batch).catch((err: unknown) => failed('end overlaps', err));
    // docs/contract.md section 23: sign-in states that came back, once no instance would take them again.
    const states = await store
      .pruneOidcStates(clock.now(), batch)
      .catch((err: unknown) => failed('prune sign-in states', err));
    // docs/contract.md section 16: replaced credentials kept for PADDOCK_CREDENTIAL_MAX_AGE (or 90 days).
    const replaced = await store
      .endReplaced(clock.now(), batch)
      .catch((err: unknown) => failed('forget replaced credentials', err));
    finished = clock.now();
    return { pruned, stale, revoked, expired, overlaps, states, replaced };
  }

  function failed(what: string, err: unknown): number {
    logger.emit(EVENTS.sweeperFailed, { error: `${what}: ${(err as Error).message}` });
    return 0;
  }

  return {
    sweep,
    start(everyMs = SWEEP_EVERY_MS) {
      timer = setInterval(() => {
        // A run still going (a slow store) is not doubled.
        running ??= sweep().finally(() => (running = undefined));
      }, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
    finishedAt: () => finished,
  };
}
