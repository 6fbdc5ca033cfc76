/**
 * The audit trail as a feed (docs/contract.md section 13): records in the order they became
 * visible, after a position, and the position each destination (the syslog collector) has been
 * sent up to. A position is `(tx, seq)`: on SQLite tx is always 0 and seq, its one writer's order,
 * decides; on PostgreSQL tx is the id of the transaction that appended the record, and only
 * records of transactions older than every one still running are read (`settled`), so a record
 * committed late never appears before one already sent (docs/decisions.md, audit to syslog).
 */
import type { AuditRecord } from '../domain/audit.ts';
import type { Sql } from './sql.ts';
import type { AuditFeedStore } from './store.ts';

/** Where a feed starts: before every record. */
export const FEED_START = { tx: 0, seq: 0 } as const;

export const auditFeedSql = {
  /** The condition that a row's writer has finished, per backend (see the backends' store.ts). */
  after: (settled: string) =>
    `SELECT tx, seq, at, event, account, client, device, run, detail FROM audit
      WHERE (tx, seq) > (?, ?) AND ${settled} ORDER BY tx, seq LIMIT ?`,
  forwarded: 'SELECT tx, seq FROM audit_forwarded WHERE name = ?',
  // Only forward: an instance that lost its lease and writes late never moves the position back.
  setForwarded: `INSERT INTO audit_forwarded (name, tx, seq) VALUES (?, ?, ?)
    ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, seq = excluded.seq
    WHERE (audit_forwarded.tx, audit_forwarded.seq) < (excluded.tx, excluded.seq)`,
} as const;

/** SQLite: one writer, every stored row is final. */
export const SQLITE_SETTLED = 'tx = 0';
/** PostgreSQL: rows of transactions that no running transaction precedes (all finished). */
export const POSTGRES_SETTLED = 'tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

export function auditFeedStore(db: Sql, settled: string): AuditFeedStore {
  const after = auditFeedSql.after(settled);
  return {
    async auditAfter(position, limit) {
      const rows = await db.arrays(after, position.tx, position.seq, limit);
      return rows.map((r) => ({
        position: { tx: Number(r[0]), seq: Number(r[1]) },
        record: {
          at: Number(r[2]),
          event: r[3] as string,
          account: (r[4] as string | null) ?? null,
          client: (r[5] as string | null) ?? null,
          device: (r[6] as string | null) ?? null,
          run: (r[7] as string | null) ?? null,
          detail: r[8] as string,
        } satisfies AuditRecord,
      }));
    },
    async auditForwarded(name) {
      const r = await db.get(auditFeedSql.forwarded, name);
      return r ? { tx: Number(r.tx), seq: Number(r.seq) } : FEED_START;
    },
    async setAuditForwarded(name, position) {
      await db.critical(auditFeedSql.setForwarded, name, position.tx, position.seq);
    },
  };
}
