/**
 * How a list of an account with groups is read (docs/contract.md section 19). Its owners (its
 * subject and each group) holding few rows together, the list reads them all through the owner
 * index and sorts them (`owner IN (…)`): at a few thousand rows that costs less than merging each
 * owner's list (sql.ts, byOwners), whose every arm is a seek and a co-routine. Past that, the merge,
 * which reads about a page per owner whatever they hold. The counters say how many rows the owners
 * hold; the answer is kept a few seconds per set of owners, since it only chooses between two
 * plans that answer alike.
 */
import { placeholders, type Sql } from './sql.ts';

/** Owners holding at most this many devices or runs together are read whole and sorted. */
export const OWNERS_SCAN_ROWS = 5_000;

const KEEP_MS = 5_000;
const MAX_ENTRIES = 10_000;

export type OwnersReach = (owners: readonly string[], table: 'devices' | 'runs') => Promise<boolean>;

/** How the lists read an account's owners: `ownersScanRows` (default OWNERS_SCAN_ROWS; 0 merges always, as tests of the merge do). */
export interface ListOptions {
  ownersScanRows?: number;
  /**
   * False: runs are stored without their words in the search index (docs/contract.md section 21).
   * Only the bench's baseline of uploads without the index sets it (bench/run_text.ts).
   */
  indexRunWords?: boolean;
}

/** Whether the owners hold few enough rows of the table to be read whole (`true`) or merged. */
export function ownersReach(db: Sql, opts: ListOptions = {}, now: () => number = Date.now): OwnersReach {
  const limit = opts.ownersScanRows ?? OWNERS_SCAN_ROWS;
  const kept = new Map<string, { at: number; few: boolean }>();
  return async function fewRows(owners, table) {
    const key = `${table}\0${owners.join('\0')}`;
    if (limit === 0) return false;
    const hit = kept.get(key);
    if (hit && now() - hit.at < KEEP_MS) return hit.few;
    const sql = `SELECT coalesce(sum(${table}), 0) AS n FROM counts WHERE owner IN (${placeholders(owners.length)})`;
    const few = Number((await db.get(sql, ...owners))?.n ?? 0) <= limit;
    if (kept.size >= MAX_ENTRIES) kept.clear();
    kept.set(key, { at: now(), few });
    return few;
  };
}
