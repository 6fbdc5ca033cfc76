/**
 * Operational log records of docs/contract.md section 8: one JSON object per line. The log takes only the
 * events of the catalogue (src/events/catalogue.ts), each at its own level with its typed fields;
 * the line writer below it (`jsonLines`) is the record format itself, for any name. A field from a
 * request is written through logJson (log_text.ts): one record is one line, whatever it holds.
 */
import { eventBus, type Emitter, type Subscriber } from '../events/bus.ts';
import type { Level } from '../events/catalogue.ts';
import { logJson } from './log_text.ts';

export type { Level } from '../events/catalogue.ts';

/** What handlers are given to emit events (the log, the audit trail and the metrics hear them). */
export type Logger = Emitter;

export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** Writes one record: `time`, `level`, `event`, then its fields. */
export type RecordWriter = (level: Level, event: string, fields?: LogFields) => void;

const rank: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Writes records at or above `minLevel` as JSON lines to `write` (stdout by default). */
export function jsonLines(
  minLevel: Level = 'info',
  write: (line: string) => void = (line) => process.stdout.write(line),
  now: () => number = Date.now,
): RecordWriter {
  return function jsonLine(level, event, fields = {}) {
    if (rank[level] < rank[minLevel]) return;
    const head = { time: new Date(now()).toISOString(), level, event };
    // The head keys come first and keep their values even if a field shares a name.
    const record = { ...head, ...fields, ...head };
    write(logJson(record) + '\n');
  };
}

/** A log that is both a subscriber (of a bus with the audit trail and metrics) and an emitter on its own. */
export type Log = Logger & Subscriber;

function logOf(writeRecord: RecordWriter): Log {
  const hear: Subscriber['hear'] = (event, fields) => writeRecord(event.level, event.name, fields);
  return { hear, ...eventBus({ hear }) };
}

/** The JSON-lines log of `paddock serve`. */
export function jsonLogger(minLevel?: Level, write?: (line: string) => void, now?: () => number): Log {
  return logOf(jsonLines(minLevel, write, now));
}

export type MemoryRecord = { level: Level; event: string } & LogFields;

/** A log that keeps its records in memory, for tests and the self-test page. */
export function memoryLogger(): Log & { records: MemoryRecord[] } {
  const records: MemoryRecord[] = [];
  return { records, ...logOf((level, event, fields = {}) => records.push({ ...fields, level, event })) };
}
