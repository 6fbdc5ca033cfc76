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
 *
 * Refusals on the routes open without a credential (the catalogue's `openRefusal`) are the one
 * exception to a row per event: at most one a minute per client address and event, with `count`
 * (refusal_limit.ts; docs/contract.md section 23). Their webhook messages are written here with
 * their rows, so webhooks receive what the trail holds.
 */
import type { Clock } from '../clock.ts';
import type { AuditRecord } from '../domain/audit.ts';
import { eventBus, type Subscriber } from '../events/bus.ts';
import { type AnyEvent, EVENTS, type Fields, type FieldsOf } from '../events/catalogue.ts';
import { type Note, note } from '../events/note.ts';
import type { Logger } from '../log/logger.ts';
import type { AuditStore, WebhooksStore } from '../store/store.ts';
import { auditRecord } from './audit_record.ts';
import { refusalLimit } from './refusal_limit.ts';

/** Rows queued beyond this (a store slow or down for long) hold their emitters until there is room. */
export const AUDIT_QUEUE_MAX = 10_000;
/** Rows written in one transaction at most, when that many wait. */
const WRITE_BATCH = 100;
/** How often the refusals counted in a passed minute are looked for (their rows come this late at most). */
export const REFUSALS_CARRIED_EVERY_MS = 5_000;

export interface AuditTrail extends Subscriber {
  /** Resolves once every record heard so far is written (or has failed and been logged). */
  flush(): Promise<void>;
  /** Rows queued, and rows waiting for room (their emitters held). */
  depth(): { queued: number; waiting: number };
  /** Queues the rows of the refusals counted in a minute that has passed (a timer calls it too). */
  carryRefusals(): void;
  /** Queues the rows of every refusal counted, whatever its minute, and stops the timer (shutdown). */
  close(): Promise<void>;
}

/** A queued row, and the webhook message of an open route's refusal (written after the row). */
interface Queued {
  row: AuditRecord;
  note?: Note;
}

/**
 * `log` hears the trail's own failures; `max` is AUDIT_QUEUE_MAX but in tests. The store's
 * `enqueue`, when given, takes the webhook messages of refusals on open routes.
 */
export function auditTrail(
  store: Pick<AuditStore, 'appendAudit'> & Partial<Pick<AuditStore, 'appendAudits'> & Pick<WebhooksStore, 'enqueue'>>,
  clock: Clock,
  log: Subscriber,
  max = AUDIT_QUEUE_MAX,
): AuditTrail {
  const queue: Queued[] = [];
  const waiting: Array<{ item: Queued; room: () => void }> = [];
  let writing: Promise<void> | undefined;
  const refusals = refusalLimit();
  let carrying: NodeJS.Timeout | undefined;

  /** Moves rows waiting for room into the queue, in the order they came, and lets their emitters go. */
  function admit(): void {
    while (queue.length < max && waiting.length > 0) {
      const next = waiting.shift();
      if (next === undefined) break;
      queue.push(next.item);
      next.room();
    }
  }

  /** One row and its note, alone; a failure is logged, naming the event. */
  async function writeOne({ row, note }: Queued): Promise<void> {
    try {
      await store.appendAudit(row);
      if (note) await store.enqueue?.(note);
    } catch (err) {
      log.hear(EVENTS.auditWriteFailed, { audit_event: row.event, error: (err as Error).message });
    }
  }

  async function drain(): Promise<void> {
    // SQLite's statements run synchronously: the first write waits for the request to be answered.
    await new Promise((resolve) => setImmediate(resolve));
    // Rows that queued together share one transaction where the store can (a commit each cost about
    // 0.1 ms on SQLite, and a hand-over of 10,000 devices queues 10,000); one at a time otherwise.
    const size = store.appendAudits ? WRITE_BATCH : 1;
    for (let batch = queue.splice(0, size); batch.length > 0; batch = queue.splice(0, size)) {
      admit();
      const rows = batch.map((q) => q.row);
      // Should the batch fail (or hold a refusal's note, written after its row), each is written alone.
      const together = store.appendAudits !== undefined && batch.length > 1 && batch.every((q) => q.note === undefined);
      const written =
        together &&
        (await store.appendAudits?.(rows).then(
          () => true,
          () => false,
        ));
      if (!written) for (const item of batch) await writeOne(item);
      // Between two batches, what arrived meanwhile (uploads, on SQLite's one connection) goes first.
      if (together && queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  function start(): void {
    writing ??= drain().finally(() => {
      writing = undefined;
      // A row queued while the last write settled starts the next round.
      if (queue.length > 0 || waiting.length > 0) start();
    });
  }

  function enqueue(event: AnyEvent, fields: Fields): void | Promise<void> {
    const at = clock.now();
    const item: Queued = { row: auditRecord(at, event, fields) };
    // Its own message: a refusal changes nothing stored that one could ride on.
    if (event.openRefusal === true && event.webhook !== undefined)
      item.note = note(event, fields as FieldsOf<AnyEvent['fields']>, at);
    start();
    if (waiting.length === 0 && queue.length < max) {
      queue.push(item);
      return;
    }
    return new Promise<void>((room) => waiting.push({ item, room }));
  }

  function carryRefusals(): void {
    for (const { event, fields } of refusals.due(clock.now())) void enqueue(event, fields);
    if (refusals.size() === 0) carrying = void clearInterval(carrying);
  }

  return {
    hear: function auditHear(event, fields) {
      if (!event.audited) return;
      if (event.openRefusal !== true) return enqueue(event, fields);
      const admitted = refusals.admit(event, fields, clock.now());
      if (carrying === undefined) {
        carrying = setInterval(carryRefusals, REFUSALS_CARRIED_EVERY_MS);
        carrying.unref();
      }
      return admitted && enqueue(event, admitted);
    },
    async flush() {
      while (writing) await writing;
    },
    depth: () => ({ queued: queue.length, waiting: waiting.length }),
    carryRefusals,
    async close() {
      carrying = void clearInterval(carrying);
      await Promise.all(refusals.drain().map(({ event, fields }) => enqueue(event, fields)));
      while (writing) await writing;
    },
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
