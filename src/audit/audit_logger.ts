/**
 * The audit trail as a subscriber of the event bus (docs/contract.md section 9): the audited events of the
 * catalogue (src/events/catalogue.ts) are queued for the store. Handlers emit their events as
 * before and never call the audit store: a record is stored because its event was emitted.
 *
 * Writes leave the request path: hearing an event only queues its row, and one writer drains the
 * queue in order, so a slow or failing store never fails a request. A failed write is logged as an
 * error that names the event, not its fields. flush() waits for the queue to drain (tests, shutdown).
 *
 * Nothing is dropped. When AUDIT_QUEUE_MAX rows wait, the next event's row waits in line behind
 * them and its emit resolves only once the row has a place in the queue: an action that awaits its
 * emit waits for room (backpressure) rather than losing its record (docs/decisions.md, issue 22).
 */
import type { Clock } from '../clock.ts';
import type { AuditRecord } from '../domain/audit.ts';
import { eventBus, type Subscriber } from '../events/bus.ts';
import { EVENTS } from '../events/catalogue.ts';
import type { Logger } from '../log/logger.ts';
import type { AuditStore } from '../store/store.ts';
import { auditRecord } from './audit_record.ts';

/** Rows queued beyond this (a store slow or down for long) hold their emitters until there is room. */
export const AUDIT_QUEUE_MAX = 10_000;

export interface AuditTrail extends Subscriber {
  /** Resolves once every record heard so far is written (or has failed and been logged). */
  flush(): Promise<void>;
  /** Rows queued, and rows waiting for room (their emitters held). */
  depth(): { queued: number; waiting: number };
}

/** `log` hears the trail's own failures; `max` is AUDIT_QUEUE_MAX but in tests. */
export function auditTrail(
  store: Pick<AuditStore, 'appendAudit'>,
  clock: Clock,
  log: Subscriber,
  max = AUDIT_QUEUE_MAX,
): AuditTrail {
  const queue: AuditRecord[] = [];
  const waiting: Array<{ row: AuditRecord; room: () => void }> = [];
  let writing: Promise<void> | undefined;

  /** Moves rows waiting for room into the queue, in the order they came, and lets their emitters go. */
  function admit(): void {
    while (queue.length < max && waiting.length > 0) {
      const next = waiting.shift();
      if (next === undefined) break;
      queue.push(next.row);
      next.room();
    }
  }

  async function drain(): Promise<void> {
    // SQLite's statements run synchronously: the first write waits for the request to be answered.
    await new Promise((resolve) => setImmediate(resolve));
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      admit();
      try {
        await store.appendAudit(next);
      } catch (err) {
        log.hear(EVENTS.auditWriteFailed, { audit_event: next.event, error: (err as Error).message });
      }
    }
  }

  function start(): void {
    writing ??= drain().finally(() => {
      writing = undefined;
      // A row queued while the last write settled starts the next round.
      if (queue.length > 0 || waiting.length > 0) start();
    });
  }

  return {
    hear: function auditHear(event, fields) {
      if (!event.audited) return;
      const row = auditRecord(clock.now(), event, fields);
      start();
      if (waiting.length === 0 && queue.length < max) {
        queue.push(row);
        return;
      }
      return new Promise<void>((room) => waiting.push({ row, room }));
    },
    async flush() {
      while (writing) await writing;
    },
    depth: () => ({ queued: queue.length, waiting: waiting.length }),
  };
}

/** The log and the audit trail on one bus (tests and benchmarks; `paddock serve` adds the metrics). */
export function auditLogger(
  log: Subscriber,
  store: Pick<AuditStore, 'appendAudit'>,
  clock: Clock,
): Logger & { flush(): Promise<void> } {
  const trail = auditTrail(store, clock, log);
  return { ...eventBus(log, trail), flush: () => trail.flush() };
}
