/** Keyset pagination (CONTRACT section 9): every list is read a page at a time, newest first. */

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
}
