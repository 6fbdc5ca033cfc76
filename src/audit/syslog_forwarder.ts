/**
 * The audit trail sent to a syslog collector (docs/contract.md section 13): every record, in the
 * order it became visible, at least once. It runs beside the server, never on a request's path:
 * it reads the stored trail after the position kept in the store (store/audit_feed.ts), writes
 * each record as an RFC 5424 message (syslog_message.ts) and moves the position on.
 *
 * - One sender at a time: several instances on one store take turns through a lease (as the
 *   retention sweep does), renewed well before it lapses; the one that takes it over starts from
 *   the kept position, so nothing is skipped and nothing is sent out of order.
 * - At least once: TCP says nothing of what the collector read. A record counts as sent once it
 *   was written and the connection then stayed up for `settleMs` (a collector that goes down
 *   closes or resets its connections, which breaks ours within that time), or once the collector
 *   closed the connection in order after reading it all (on stop). When a connection breaks, the
 *   records not yet counted are sent again on the next one: duplicates, only at that boundary.
 * - A collector that is down is tried again with growing delays (backoff); each failure is logged
 *   as audit.syslog_failed. Memory is bounded: a batch at a time, and at most `maxInFlight`
 *   records written but not yet counted.
 */
import { hostname } from 'node:os';
import type { Clock } from '../clock.ts';
import type { SyslogTarget } from '../config/parse.ts';
import { randomToken } from '../crypto/random.ts';
import { EVENTS } from '../events/catalogue.ts';
import type { Logger } from '../log/logger.ts';
import type { AuditPosition, Store } from '../store/store.ts';
import { connectSyslog, type SyslogConnection } from './syslog_connection.ts';
import { octetCounted, syslogMessage, type SyslogOrigin } from './syslog_message.ts';

/** The lease that lets one instance send at a time, and the name its position is kept under. */
export const SYSLOG_LEASE = 'audit.syslog';
export const SYSLOG_POSITION = 'syslog';

export interface SyslogTuning {
  /** How often the trail is read for new records when there were none. */
  pollMs: number;
  /** Records read and written at a time. */
  batch: number;
  /** How long the lease lasts unless renewed; renewed every third of it. */
  leaseMs: number;
  /** How long a connection must stay up after a write for its records to count as sent. */
  settleMs: number;
  /** At most this many records written but not yet counted; then the sender waits for them to settle. */
  maxInFlight: number;
  /** The first delay after a failure, doubled at each failure in a row up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Connect and handshake; and one write. */
  connectTimeoutMs: number;
  writeTimeoutMs: number;
}

export const SYSLOG_TUNING: SyslogTuning = {
  pollMs: 1_000,
  batch: 200,
  leaseMs: 30_000,
  settleMs: 2_000,
  maxInFlight: 2_000,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  connectTimeoutMs: 10_000,
  writeTimeoutMs: 10_000,
};

export interface SyslogForwarderOptions {
  store: Pick<Store, 'auditAfter' | 'auditForwarded' | 'setAuditForwarded' | 'takeLease' | 'releaseLease'>;
  logger: Logger;
  clock: Clock;
  target: SyslogTarget;
  /** PEM CA(s) for tls://; the system's CAs when absent. */
  ca?: string | undefined;
  origin?: SyslogOrigin;
  /** This instance's name as the lease's holder (random by default). */
  holder?: string;
  tuning?: Partial<SyslogTuning>;
}

export interface SyslogForwarder {
  start(): void;
  /** Stops sending: closes the connection in order (counting what the collector read), releases the lease. */
  stop(): Promise<void>;
}

/** Records written on the current connection and not yet counted as sent: the last position of each write. */
interface Written {
  position: AuditPosition;
  records: number;
  at: number;
}

export function syslogForwarder(opts: SyslogForwarderOptions): SyslogForwarder {
  const { store, logger, clock, target } = opts;
  const tuning = { ...SYSLOG_TUNING, ...opts.tuning };
  const holder = opts.holder ?? randomToken(12);
  const origin = opts.origin ?? { hostname: hostname(), procid: String(process.pid) };
  let connection: SyslogConnection | undefined;
  /** The last record written on this connection; the next read starts after it. */
  let written: AuditPosition | undefined;
  let inFlight: Written[] = [];
  let renewedAt: number | undefined;
  let failures = 0;
  let stopping = false;
  let running: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  /** Waits `ms`, or less when stop() is called. */
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  /** Takes or renews the lease when a third of it has passed; false when another instance holds it. */
  async function holdLease(): Promise<boolean> {
    const now = clock.now();
    if (renewedAt !== undefined && now - renewedAt < tuning.leaseMs / 3) return true;
    // Lapsed while this instance stalled: another may have sent since, so start again from the store.
    if (renewedAt !== undefined && now - renewedAt >= tuning.leaseMs) drop();
    if (await store.takeLease(SYSLOG_LEASE, holder, now, now + tuning.leaseMs)) {
      renewedAt = now;
      return true;
    }
    renewedAt = undefined;
    return false;
  }

  /** Counts as sent the writes that the connection outlived by settleMs (or all of them). */
  async function count(all = false): Promise<void> {
    const settled = clock.now() - tuning.settleMs;
    const done = all ? inFlight : inFlight.filter((w) => w.at <= settled);
    const last = done.at(-1);
    if (last === undefined) return;
    await store.setAuditForwarded(SYSLOG_POSITION, last.position);
    inFlight = inFlight.slice(done.length);
  }

  /** Leaves the connection; what it did not count is sent again on the next one. */
  function drop(): void {
    connection?.destroy();
    connection = undefined;
    written = undefined;
    inFlight = [];
  }

  async function connect(): Promise<SyslogConnection> {
    const from = await store.auditForwarded(SYSLOG_POSITION);
    const opened = await connectSyslog(target, { ca: opts.ca, timeoutMs: tuning.connectTimeoutMs });
    written = from;
    inFlight = [];
    await logger.emit(EVENTS.auditSyslogConnected, { target: target.text, position: from.seq });
    return opened;
  }

  /** One step: what it returns is how long to wait before the next. */
  async function step(): Promise<number> {
    if (!(await holdLease())) {
      drop();
      return tuning.leaseMs / 3;
    }
    connection ??= await connect();
    const broken = connection.broken();
    if (broken) throw broken;
    await count();
    if (inFlight.reduce((n, w) => n + w.records, 0) >= tuning.maxInFlight) return tuning.settleMs / 4;
    const feed = await store.auditAfter(written ?? (await store.auditForwarded(SYSLOG_POSITION)), tuning.batch);
    const last = feed.at(-1);
    if (last === undefined) return tuning.pollMs;
    const frames = feed.map((f) => octetCounted(syslogMessage(f.record, f.position.seq, origin)));
    await connection.write(Buffer.concat(frames), tuning.writeTimeoutMs);
    written = last.position;
    inFlight.push({ position: last.position, records: feed.length, at: clock.now() });
    failures = 0;
    return feed.length < tuning.batch ? tuning.pollMs : 0;
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      let wait: number;
      try {
        wait = await step();
      } catch (err) {
        // A store error keeps the connection; a broken connection is left, its uncounted records resent.
        if (connection?.broken() || !connection) drop();
        failures++;
        wait = Math.min(tuning.maxBackoffMs, tuning.backoffMs * 2 ** (failures - 1));
        await logger.emit(EVENTS.auditSyslogFailed, {
          target: target.text,
          error: (err as Error).message,
          retry_in_ms: wait,
        });
      }
      if (!stopping && wait > 0) await pause(wait);
    }
  }

  async function finish(): Promise<void> {
    const open = connection;
    connection = undefined;
    try {
      if (open) {
        await count();
        // An orderly close the collector answers in order means it read every byte written.
        if (await open.end(tuning.settleMs)) await count(true);
      }
      if (renewedAt !== undefined) await store.releaseLease(SYSLOG_LEASE, holder);
    } catch (err) {
      await logger.emit(EVENTS.auditSyslogFailed, {
        target: target.text,
        error: (err as Error).message,
        retry_in_ms: 0,
      });
    } finally {
      open?.destroy();
      inFlight = [];
    }
  }

  return {
    start() {
      running ??= loop();
    },
    async stop() {
      stopping = true;
      wake?.();
      await running;
      await finish();
    },
  };
}
