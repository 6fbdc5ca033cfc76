/**
 * The accounts page (docs/contract.md section 9): each account that signed in, with the devices and runs
 * it owns read from the counts table (kept by triggers, see the 'counts' migrations), so a page
 * costs a few index lookups per account whatever the size of the fleet.
 */
import { rowsYielded, type Sql } from './sql.ts';
import type { AccountsStore } from './store.ts';
import type { AccountSummary } from '../domain/accounts.ts';
import { ACCOUNTS_CURSOR, type Page } from '../domain/paging.ts';

export const accountsSql = {
  page: `SELECT a.subject, a.display, a.last_sign_in_at, a.admin, a.disabled_at,
    (SELECT coalesce(sum(devices), 0) FROM counts WHERE owner = a.subject) AS devices,
    (SELECT coalesce(sum(runs), 0) FROM counts WHERE owner = a.subject) AS runs
    FROM accounts a WHERE (a.last_sign_in_at, a.subject) < (?, ?)
    ORDER BY a.last_sign_in_at DESC, a.subject DESC LIMIT ?`,
  /** The list's total (docs/contract.md section 22): its rows without their columns or counters. */
  count: `SELECT 1 FROM accounts LIMIT ?`,
} as const;

export function accountsStore(db: Sql): AccountsStore {
  return {
    async accountsPage(req): Promise<Page<AccountSummary>> {
      const m = req.before === undefined ? null : ACCOUNTS_CURSOR.exec(req.before);
      if (req.before !== undefined && !m) throw new TypeError(`accounts: bad cursor ${req.before}`);
      // Every subject sorts after the empty string, so the first page starts after (max, '').
      const after = m ? [Number(m[1]), m[2] ?? ''] : [Number.MAX_SAFE_INTEGER, ''];
      const rows = await db.all(accountsSql.page, ...after, req.limit + 1);
      const items = rows.slice(0, req.limit).map((r): AccountSummary => ({
        subject: r.subject as string,
        display: r.display as string,
        lastSignInAt: Number(r.last_sign_in_at),
        admin: Number(r.admin) === 1,
        disabledAt: r.disabled_at === null ? null : Number(r.disabled_at),
        devices: Number(r.devices),
        runs: Number(r.runs),
      }));
      const last = items.at(-1);
      return rows.length > req.limit && last ? { items, next: `${last.lastSignInAt}:${last.subject}` } : { items };
    },
    async countAccounts(upTo) {
      return rowsYielded(db, accountsSql.count, [upTo + 1]);
    },
  };
}
