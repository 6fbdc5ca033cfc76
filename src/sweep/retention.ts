/**
 * The retention sweep (docs/contract.md section 10): every PADDOCK_SWEEP_INTERVAL, runs older than their
 * level's PADDOCK_RETENTION_* are deleted, oldest first, in bounded batches. It has its own timer
 * rather than riding the minute sweeper (sweeper.ts): its interval is configured, and it holds a
 * lease in the store, so one instance sweeps at a time across instances sharing a store; the
 * lease is renewed before each batch and released at the end, and lapses by itself if the
 * instance dies. Each sweep that deletes something is one `runs.swept` record (counts only, as
 * `system`); every sweep this instance makes is written to the settings table for the dashboard.
 */
import type { Clock } from '../clock.ts';
import { randomToken } from '../crypto/random.ts';
import { PRIVACY_LEVELS, type PrivacyLevel } from '../domain/privacy.ts';
import {
  cutoffs,
  LAST_SWEEP_SETTING,
  RETENTION_BATCH,
  RETENTION_BATCHES,
  type Retention,
  type SweepRecord,
} from '../domain/retention.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';

export const SWEEP_LEASE = 'retention.sweep';

export interface RetentionSweepOptions {
  store: Pick<Store, 'deleteExpiredRuns' | 'takeLease' | 'releaseLease' | 'setSetting' | 'enqueue'>;
  logger: Logger;
  clock: Clock;
  retention: Retention;
  /** PADDOCK_SWEEP_INTERVAL: also how long the lease lasts unless renewed. */
  intervalMs: number;
  /** This instance's name as the lease's holder (random by default). */
  holder?: string;
  batch?: number;
  batches?: number;
}

export interface RetentionSweeper {
  /** One sweep now: what it did, or undefined when nothing is retained or another instance holds the lease. */
  sweep(): Promise<SweepRecord | undefined>;
  /**
   * Starts the timer, also with nothing retained (each run then finishes at once, touching nothing):
   * so the stalled-sweep gauge always has a sweep to follow.
   */
  start(): void;
  /**
   * When this instance's last run finished (epoch ms): a sweep, or a run with nothing retained; not
   * one that found the lease held by another (whose sweep the store's record shows). Undefined before the first.
   */
  finishedAt(): number | undefined;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

export function retentionSweeper(opts: RetentionSweepOptions): RetentionSweeper {
  const { store, logger, clock } = opts;
  const holder = opts.holder ?? randomToken(12);
  const batch = opts.batch ?? RETENTION_BATCH;
  const batches = opts.batches ?? RETENTION_BATCHES;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let finished: number | undefined;

  const lease = () => store.takeLease(SWEEP_LEASE, holder, clock.now(), clock.now() + opts.intervalMs);

  async function sweep(): Promise<SweepRecord | undefined> {
    const levels = cutoffs(opts.retention, clock.now());
    if (levels.length === 0) {
      finished = clock.now();
      return undefined;
    }
    try {
      if (!(await lease())) return undefined;
    } catch (err) {
      failed(err);
      return undefined;
    }
    const runs = Object.fromEntries(PRIVACY_LEVELS.map((l) => [l, 0])) as Record<PrivacyLevel, number>;
    let bytes = 0;
    let result: SweepRecord['result'] = 'ok';
    try {
      sweeping: for (const [level, before] of levels) {
        for (let i = 0; i < batches; i++) {
          // Renewed before each batch: a slow sweep keeps it; a lost one (this instance stalled
          // past its expiry and another took it) stops here.
          if (i > 0 && !(await lease())) {
            result = 'partial';
            break sweeping;
          }
          const done = await store.deleteExpiredRuns(level, before, batch);
          runs[level] += done.runs;
          bytes += done.bytes;
          if (done.runs < batch) break;
          // Requests waiting on the store go between batches.
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } catch (err) {
      failed(err);
      result = 'partial';
    }
    const record: SweepRecord = { at: clock.now(), result, runs, bytes };
    if (PRIVACY_LEVELS.some((l) => runs[l] > 0)) {
      const fields = { account: 'system', ...runs, bytes };
      // One summary of batches that each committed on their own: written after the last of them.
      await store.enqueue(note(EVENTS.runsSwept, fields, clock.now())).catch(failed);
      await logger.emit(EVENTS.runsSwept, fields);
    }
    await store.setSetting(LAST_SWEEP_SETTING, JSON.stringify(record)).catch(failed);
    // Released even when the record could not be written; if this fails too, it lapses at its expiry.
    await store.releaseLease(SWEEP_LEASE, holder).catch(failed);
    finished = clock.now();
    return record;
  }

  function failed(err: unknown): void {
    logger.emit(EVENTS.sweeperFailed, { error: `retention sweep: ${(err as Error).message}` });
  }

  return {
    sweep,
    start() {
      timer = setInterval(() => {
        running ??= sweep().finally(() => (running = undefined));
      }, opts.intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
    finishedAt: () => finished,
  };
}
