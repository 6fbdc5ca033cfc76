/** Operational log records of CONTRACT section 8: one JSON object per line. */
export type Level = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  log(level: Level, event: string, fields?: LogFields): void;
}

const rank: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Writes records at or above `minLevel` as JSON lines to `write` (stdout by default). */
export function jsonLogger(
  minLevel: Level = 'info',
  write: (line: string) => void = (line) => process.stdout.write(line),
  now: () => number = Date.now,
): Logger {
  return {
    log: function jsonLog(level, event, fields = {}) {
      if (rank[level] < rank[minLevel]) return;
      const head = { time: new Date(now()).toISOString(), level, event };
      // The head keys come first and keep their values even if a field shares a name.
      const record = { ...head, ...fields, ...head };
      write(JSON.stringify(record) + '\n');
    },
  };
}

/** A logger that keeps its records in memory, for tests and the self-test page. */
export function memoryLogger(): Logger & { records: Array<{ level: Level; event: string } & LogFields> } {
  const records: Array<{ level: Level; event: string } & LogFields> = [];
  return {
    records,
    log(level, event, fields = {}) {
      records.push({ ...fields, level, event });
    },
  };
}
