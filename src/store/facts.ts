/**
 * Device facts (docs/contract.md section 16): the statements, written once for both stores. A
 * report replaces the device's facts in one transaction whose first statement writes its report
 * row, so two reports of one device (PostgreSQL: on two instances) run one after the other and the
 * last one's set is what stays. Enrollment writes its facts in its own transaction (each
 * backend's devices.ts) with factsSql.
 */
import { emptyFacts, type Facts } from '../domain/facts.ts';
import type { FactSelector } from '../domain/facts.ts';
import type { Page } from '../domain/paging.ts';
import type { EnrollInput } from '../domain/enroll_tokens.ts';
import type { Param, Sql } from './sql.ts';
import type { FactsStore } from './store.ts';

export const factsSql = {
  /** The report row, first: its row (lock) orders concurrent reports of one device. */
  report: `INSERT INTO device_fact_reports (device_seq, reported_at)
    SELECT seq, ? FROM devices WHERE id = ? AND revoked_at IS NULL
    ON CONFLICT (device_seq) DO UPDATE SET reported_at = excluded.reported_at`,
  clear: 'DELETE FROM device_facts WHERE device_seq = (SELECT seq FROM devices WHERE id = ? AND revoked_at IS NULL)',
  /** Enrollment's: the new device's report and facts, by its seq. */
  reportOfSeq: 'INSERT INTO device_fact_reports (device_seq, reported_at) VALUES (?, ?)',
  putOfSeq: 'INSERT INTO device_facts (device_seq, key, value) VALUES (?, ?, ?)',
  ofSeq: `SELECT r.reported_at, f.key, f.value FROM device_fact_reports r
    LEFT JOIN device_facts f ON f.device_seq = r.device_seq WHERE r.device_seq = ?`,
  /**
   * The devices by one fact's values, most common first (the dashboard's client versions). Revoked
   * devices are not counted, nor those waiting for approval (anyone holding such a token could skew
   * the counts): every device's value is counted from a range of device_facts_value alone, and the
   * revoked and waiting devices' values (their partial indexes, then the facts' primary key) are
   * taken away. Looking up each counted row's device took 117 ms on SQLite at 100,000 devices, on
   * the event loop; the two sets are disjoint, as a revocation ends a wait.
   */
  valueCounts: `WITH every AS (
      SELECT value, count(*) AS n FROM device_facts WHERE key = ? GROUP BY value
    ), gone AS (
      SELECT f.value, count(*) AS n FROM (
        SELECT seq FROM devices WHERE revoked_at IS NOT NULL
        UNION ALL SELECT seq FROM devices WHERE pending_since IS NOT NULL
      ) AS inactive CROSS JOIN device_facts f WHERE f.device_seq = inactive.seq AND f.key = ? GROUP BY f.value
    )
    SELECT every.value, every.n - coalesce(gone.n, 0) AS counted FROM every LEFT JOIN gone ON gone.value = every.value
    WHERE every.n > coalesce(gone.n, 0) ORDER BY counted DESC, every.value LIMIT ?`,
} as const;

/** Enrollment's report, when the device sent facts: the statements that record it for the new device. */
export function enrollmentFacts(seq: number, input: EnrollInput): Array<[string, ...Param[]]> {
  if (input.facts === undefined) return [];
  return [
    [factsSql.reportOfSeq, seq, input.now],
    ...Object.entries(input.facts).map(([key, value]): [string, ...Param[]] => [factsSql.putOfSeq, seq, key, value]),
  ];
}

/** All of a report's facts in one INSERT … SELECT, so a set of 32 costs one statement, not 32. */
function putAllSql(count: number): string {
  const rows = Array.from({ length: count }, (_, i) =>
    i === 0 ? 'SELECT CAST(? AS TEXT) AS key, CAST(? AS TEXT) AS value' : 'SELECT ?, ?',
  ).join(' UNION ALL ');
  return `INSERT INTO device_facts (device_seq, key, value)
    SELECT d.seq, v.key, v.value FROM devices d CROSS JOIN (${rows}) v WHERE d.id = ? AND d.revoked_at IS NULL`;
}

/**
 * The facts of up to a page of devices, by their seqs (the first column of every list query): one
 * statement on the primary keys of device_fact_reports and device_facts.
 */
export function factsOfSeqsSql(count: number): string {
  return `SELECT r.device_seq, r.reported_at, f.key, f.value FROM device_fact_reports r
    LEFT JOIN device_facts f ON f.device_seq = r.device_seq
    WHERE r.device_seq IN (${Array.from({ length: count }, () => '?').join(', ')})`;
}

/** What the console and the API show of a device's report. */
export interface Reported {
  facts: Facts;
  factsReportedAt: number | null;
}

const NEVER: Reported = Object.freeze({ facts: Object.freeze(emptyFacts()), factsReportedAt: null });

/** Rows of [reported_at, key, value] (key null for a report of no facts) as one device's report. */
function reportFrom(rows: ReadonlyArray<readonly unknown[]>): Reported {
  if (rows.length === 0) return NEVER;
  const pairs = rows.filter((r) => r[1] !== null).map((r) => [r[1] as string, r[2] as string] as const);
  const facts = emptyFacts();
  for (const [key, value] of pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) facts[key] = value;
  return { facts, factsReportedAt: Number(rows[0]?.[0]) };
}

/** One device's report, by its seq. */
export async function reportOfSeq(db: Sql, seq: number): Promise<Reported> {
  return reportFrom(await db.arrays(factsSql.ofSeq, seq));
}

/**
 * A page's devices with their facts: `rows` are the list's own (seq first, in the page's order),
 * `listed` the page made of them; one more statement, run while the labels are read.
 */
export async function withFacts<T>(
  db: Sql,
  rows: readonly (readonly unknown[])[],
  limit: number,
  listed: Promise<Page<T>>,
): Promise<Page<T & Reported>> {
  const seqs = rows.slice(0, limit).map((r) => Number(r[0]));
  const [page, found] = await Promise.all([
    listed,
    seqs.length === 0 ? Promise.resolve([]) : db.arrays(factsOfSeqsSql(seqs.length), ...seqs),
  ]);
  const bySeq = new Map<number, unknown[][]>();
  for (const [seq, ...rest] of found) {
    const list = bySeq.get(Number(seq)) ?? [];
    list.push(rest);
    bySeq.set(Number(seq), list);
  }
  return {
    ...page,
    items: page.items.map((item, i) => ({ ...item, ...reportFrom(bySeq.get(seqs[i] as number) ?? []) })),
  };
}

/**
 * The fact filters as conditions on `devices` (an EXISTS on device_facts' primary key each), for
 * device lists driven by another index (an owner's devices, or another sort).
 */
export function factConditions(selectors: readonly FactSelector[]): { sql: string[]; params: Param[] } {
  return {
    sql: selectors.map(
      () => 'EXISTS (SELECT 1 FROM device_facts f WHERE f.device_seq = devices.seq AND f.key = ? AND f.value = ?)',
    ),
    params: selectors.flatMap((s) => [s.key, s.value]),
  };
}

/**
 * The fact filters as conditions a collection reaches devices by (docs/contract.md section 15):
 * each reads its devices from device_facts_value, so a rare fact reaches its devices without
 * reading the fleet.
 */
export function factReach(selectors: readonly FactSelector[]): { sql: string[]; params: Param[] } {
  return {
    sql: selectors.map(() => 'seq IN (SELECT device_seq FROM device_facts WHERE key = ? AND value = ?)'),
    params: selectors.flatMap((s) => [s.key, s.value]),
  };
}

export function factsStore(db: Sql): FactsStore {
  return {
    async reportFacts(device, facts, at) {
      const entries = Object.entries(facts);
      const statements: Array<readonly [string, Param[]]> = [
        [factsSql.report, [at, device]],
        [factsSql.clear, [device]],
      ];
      if (entries.length > 0) statements.push([putAllSql(entries.length), [...entries.flat(), device]]);
      const [reported] = await db.atomically(statements);
      return reported === 1;
    },
    async factValueCounts(key, limit) {
      return (await db.arrays(factsSql.valueCounts, key, key, limit)).map(([value, n]) => ({
        value: value as string,
        devices: Number(n),
      }));
    },
  };
}
