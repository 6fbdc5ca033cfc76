/** Keyset pagination (docs/contract.md section 9): every list is read a page at a time, newest first. */

/** The rows of one page of a list, in the console and in the API. */
export const PAGE_SIZE = 50;

/** Keyset pagination: newest first; `before` is the cursor of the last row already shown. */
export interface PageRequest {
  before?: string | undefined;
  limit: number;
}

export interface Page<T> {
  items: T[];
  /** Cursor for the next (older) page, absent on the last page. */
  next?: string;
  /**
   * The page stopped where its reading did, not at its size: a search reads at most so many
   * candidates a page (docs/contract.md section 21), so it may hold fewer rows and still go on.
   */
  cut?: true;
}

/**
 * The cursors of the lists, each the shape of what the store pages by: a sequence number (devices,
 * runs, access tokens), an audit record's time and sequence number, an account's last sign-in and
 * subject. Enrollment tokens page by their public id (domain/enroll_tokens.ts, TOKEN_PUBLIC_ID).
 */
export const SEQ_CURSOR = /^[1-9][0-9]{0,14}$/;
export const AUDIT_CURSOR = /^([0-9]{1,15})\.([0-9]{1,15})$/;
export const ACCOUNTS_CURSOR = /^([0-9]{1,15}):(.{1,512})$/s;
