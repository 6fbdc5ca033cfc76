/**
 * The audit trail as a Logger decorator (CONTRACT section 9): every record passes to the inner
 * logger unchanged, and the audited ones (audit_record.ts) are also queued for the store. Handlers
 * keep logging as before and never call the audit store: a record is stored because it is logged.
 *
 * Writes leave the request path: log() only queues, and one writer drains the queue in order, so
 * a slow or failing store never delays or fails a request. A failed write is logged as an error
 * that names the event, not its fields. flush() waits for the queue to drain (tests, shutdown).
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../log/logger.ts';
import type { AuditStore } from '../store/store.ts';
import type { AuditRecord } from '../domain/audit.ts';
import { AUDITED_EVENTS, auditRecord } from './audit_record.ts';

/** Records waiting beyond this (a store down for long) are dropped and counted, so memory stays bounded. */
export const AUDIT_QUEUE_MAX = 10_000;

export interface AuditLogger extends Logger {
  /** Resolves once every record queued so far is written (or has failed and been logged). */
  flush(): Promise<void>;
}

export function auditLogger(inner: Logger, store: Pick<AuditStore, 'appendAudit'>, clock: Clock): AuditLogger {
  const queue: AuditRecord[] = [];
  let writing: Promise<void> | undefined;
  let dropped = 0;

  async function drain(): Promise<void> {
    // SQLite's statements run synchronously: the first write waits for the request to be answered.
    await new Promise((resolve) => setImmediate(resolve));
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      try {
        await store.appendAudit(next);
      } catch (err) {
        inner.log('error', 'audit.write_failed', { event: next.event, error: (err as Error).message });
      }
    }
    if (dropped > 0) {
      inner.log('error', 'audit.dropped', { records: dropped, error: 'the audit queue was full' });
      dropped = 0;
    }
  }

  function start(): void {
    writing ??= drain().finally(() => {
      writing = undefined;
      // A record queued while the last write settled starts the next round.
      if (queue.length > 0) start();
    });
  }

  return {
    log: function auditLog(level, event, fields = {}) {
      inner.log(level, event, fields);
      if (!AUDITED_EVENTS.has(event)) return;
      if (queue.length >= AUDIT_QUEUE_MAX) {
        dropped++;
        return;
      }
      queue.push(auditRecord(clock.now(), event, fields));
      start();
    },
    async flush() {
      while (writing) await writing;
    },
  };
}
