/** Store failures carry the operation; the cause is for the log, never for a page. */
export class StoreError extends Error {
  readonly code: string;
  constructor(code: string, message: string, cause?: unknown) {
    super(`store: ${message}`, { cause });
    this.name = 'StoreError';
    this.code = code;
  }
}

/**
 * The store's disk is full: SQLITE_FULL (node:sqlite's errcode, extended codes included),
 * PostgreSQL's disk_full (53100), or ENOSPC from the filesystem.
 */
export function isStorageFull(err: unknown): boolean {
  const e = err as { errcode?: unknown; code?: unknown; cause?: unknown } | undefined;
  if (typeof e?.errcode === 'number' && (e.errcode & 0xff) === 13) return true;
  if (e?.code === '53100' || e?.code === 'ENOSPC') return true;
  return e?.cause !== undefined && e.cause !== err && isStorageFull(e.cause);
}

/**
 * What went wrong, in the driver's or the system's own words: the innermost cause's message (a
 * StoreError wraps the driver's, which says what is wrong), or its code when it has no message
 * (a refused connection to every address of a host is an AggregateError with only a code).
 */
export function innermostReason(err: unknown): string {
  let e = err as { message?: unknown; cause?: unknown; code?: unknown } | undefined;
  while (e?.cause instanceof Error) e = e.cause as typeof e;
  return String(e?.message || e?.code || err);
}
