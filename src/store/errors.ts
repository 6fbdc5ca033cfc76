/** Store failures carry the operation; the cause is for the log, never for a page. */
export class StoreError extends Error {
  readonly code: string;
  constructor(code: string, message: string, cause?: unknown) {
    super(`store: ${message}`, { cause });
    this.name = 'StoreError';
    this.code = code;
  }
}
