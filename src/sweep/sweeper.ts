/**
 * The sweeper: once a minute, the work nobody asks for (docs/contract.md section 9). It prunes audit
 * records older than PADDOCK_AUDIT_RETENTION and, when PADDOCK_REVOKE_STALE_AFTER is set, revokes
 * devices not seen for that long, each logged (and so audited) as done by `system`. Each run does
 * a bounded number of bounded batches, so one run never holds the store for long; what is left
 * waits for the next run. Every instance on a shared store may sweep: each batch is one statement,
 * so two instances never revoke or delete the same row twice.
 */
import { noteStaleDevices, revokeStaleDevices } from '../actions/devices.ts';
import type { Clock } from '../clock.ts';
import { SYSTEM_ACTOR } from '../domain/accounts.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { EVENTS } from '../events/catalogue.ts';

export const SWEEP_EVERY_MS = 60_000;
/** Rows per statement, and statements per run and kind. */
export const SWEEP_BATCH = 500;
export const SWEEP_BATCHES = 10;

export interface SweeperOptions {
  store: Pick<Store, 'pruneAudit' | 'revokeStale' | 'markStale'>;
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
  sweep(): Promise<{ pruned: number; stale: number; revoked: number }>;
  /** Starts the timer (unref'd: it never keeps the process alive). */
  start(everyMs?: number): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function sweeper(opts: SweeperOptions): Sweeper {
  const { store, logger, clock } = opts;
  const batch = opts.batch ?? SWEEP_BATCH;
  const batches = opts.batches ?? SWEEP_BATCHES;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function prune(): Promise<number> {
    const before = clock.now() - opts.auditRetentionMs;
    let total = 0;
    for (let i = 0; i < batches; i++) {
      const n = await store.pruneAudit(before, batch);
      total += n;
      if (n < batch) break;
    }
    return total;
  }

  async function revokeStale(): Promise<number> {
    const staleAfterMs = opts.revokeStaleAfterMs;
    if (staleAfterMs === undefined) return 0;
    let total = 0;
    for (let i = 0; i < batches; i++) {
      // The same action as an account's revoke, as the system actor: it logs each revocation.
      const ids = await revokeStaleDevices({ store, logger, clock }, SYSTEM_ACTOR, { staleAfterMs, limit: batch });
      total += ids.length;
      if (ids.length < batch) break;
    }
    return total;
  }

  async function noteStale(): Promise<number> {
    const staleAfterMs = opts.staleAfterMs;
    if (staleAfterMs === undefined) return 0;
    let total = 0;
    for (let i = 0; i < batches; i++) {
      const ids = await noteStaleDevices({ store, logger, clock }, { staleAfterMs, limit: batch });
      total += ids.length;
      if (ids.length < batch) break;
    }
    return total;
  }

  async function sweep() {
    // Each kind is tried even when the other fails: a store error is logged and the next run retries.
    const pruned = await prune().catch((err: unknown) => failed('prune audit', err));
    const stale = await noteStale().catch((err: unknown) => failed('note stale devices', err));
    const revoked = await revokeStale().catch((err: unknown) => failed('revoke stale devices', err));
    return { pruned, stale, revoked };
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
  };
}
