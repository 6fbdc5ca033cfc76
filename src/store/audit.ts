/**
 * The audit trail (docs/contract.md section 9): records are appended, read newest first by keyset pages
 * or batches, and pruned by age. Nothing here updates a record, and both schemas refuse an UPDATE
 * with a trigger (the 'audit' migrations). Each filter walks its own index on (column, at, seq),
 * so a filtered page or a batch costs the same at any size of the trail.
 */
import { rowsYielded, type Param, type Sql } from './sql.ts';
import type { AuditStore } from './store.ts';
import type { AuditFilter, AuditRecord } from '../domain/audit.ts';
import { AUDIT_CURSOR, type Page, type PageRequest } from '../domain/paging.ts';

const columns = 'seq, at, event, account, client, device, run, detail';

export const auditSql = {
  append: 'INSERT INTO audit (at, event, account, client, device, run, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
  // The `limit` oldest records before the time, as a range of audit_at ending at the last of them:
  // one index range on both backends (an IN list made PostgreSQL scan the table to join it).
  prune: `DELETE FROM audit WHERE at < ? AND (at, seq) <= (
    SELECT at, seq FROM (SELECT at, seq FROM audit WHERE at < ? ORDER BY at, seq LIMIT ?) AS oldest
    ORDER BY at DESC, seq DESC LIMIT 1)`,
} as const;

/**
 * The filtered trail, newest first, after the cursor `(at, seq)`: one statement per combination
 * of filters, each condition an index range (see test/store/query_plans.test.ts).
 */
export function auditQuery(
  filter: AuditFilter,
  after: [number, number],
  limit: number,
  selected: string = columns,
): { sql: string; params: Param[] } {
  const where: string[] = [];
  const params: Param[] = [];
  const add = (condition: string, value: Param) => (where.push(condition), params.push(value));
  if (filter.actor !== undefined) add('account = ?', filter.actor);
  if (filter.event !== undefined) add('event = ?', filter.event);
  if (filter.device !== undefined) add('device = ?', filter.device);
  if (filter.since !== undefined) add('at >= ?', filter.since);
  if (filter.until !== undefined) add('at < ?', filter.until);
  where.push('(at, seq) < (?, ?)');
  params.push(after[0], after[1], limit);
  return {
    sql: `SELECT ${selected} FROM audit WHERE ${where.join(' AND ')} ORDER BY at DESC, seq DESC LIMIT ?`,
    params,
  };
}

/** The position before every record: the first page starts here. */
const NEWEST: [number, number] = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

function position(before: string | undefined): [number, number] {
  const m = before === undefined ? null : AUDIT_CURSOR.exec(before);
  if (before !== undefined && !m) throw new TypeError(`audit: bad cursor ${before}`);
  return m ? [Number(m[1]), Number(m[2])] : NEWEST;
}

function recordFrom(r: unknown[]): AuditRecord {
  return {
    at: Number(r[1]),
    event: r[2] as string,
    account: (r[3] as string | null) ?? null,
    client: (r[4] as string | null) ?? null,
    device: (r[5] as string | null) ?? null,
    run: (r[6] as string | null) ?? null,
    detail: r[7] as string,
  };
}

/** The rows one appendAudits statement writes at most (700 parameters). */
const APPEND_ROWS = 100;

/** auditSql.append for `n` rows. */
function appendRows(n: number): string {
  return `${auditSql.append}${', (?, ?, ?, ?, ?, ?, ?)'.repeat(n - 1)}`;
}

export function auditStore(db: Sql): AuditStore {
  async function read(filter: AuditFilter, after: [number, number], limit: number) {
    const { sql, params } = auditQuery(filter, after, limit);
    return db.arrays(sql, ...params);
  }
  return {
    async appendAudit(a) {
      await db.run(auditSql.append, a.at, a.event, a.account, a.client, a.device, a.run, a.detail);
    },
    async appendAudits(records) {
      // One statement of up to 100 rows (one round trip on PostgreSQL), in order: seq follows it.
      for (let i = 0; i < records.length; i += APPEND_ROWS) {
        const some = records.slice(i, i + APPEND_ROWS);
        await db.run(
          appendRows(some.length),
          ...some.flatMap((a) => [a.at, a.event, a.account, a.client, a.device, a.run, a.detail]),
        );
      }
    },
    async auditPage(filter, req: PageRequest): Promise<Page<AuditRecord>> {
      const rows = await read(filter, position(req.before), req.limit + 1);
      const items = rows.slice(0, req.limit).map(recordFrom);
      const last = rows[req.limit - 1];
      return rows.length > req.limit && last ? { items, next: `${Number(last[1])}.${Number(last[0])}` } : { items };
    },
    async countAudit(filter, upTo) {
      // The page's statement without its columns: the same index range, stopped one row past the count.
      const { sql, params } = auditQuery(filter, NEWEST, upTo + 1, '1');
      return rowsYielded(db, sql, params);
    },
    async *auditBatches(filter, size) {
      let after = NEWEST;
      for (;;) {
        const rows = await read(filter, after, size);
        if (rows.length > 0) yield rows.map(recordFrom);
        const last = rows.at(-1);
        if (rows.length < size || !last) return;
        after = [Number(last[1]), Number(last[0])];
      }
    },
    async pruneAudit(before, limit) {
      return db.run(auditSql.prune, before, before, limit);
    },
  };
}
