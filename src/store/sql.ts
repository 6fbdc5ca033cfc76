/**
 * What the domain files of the store need of a database: statements written once, with `?`
 * placeholders, run on either backend. SQLite runs them synchronously on its one connection and
 * answers with settled promises; PostgreSQL numbers the placeholders and runs them on its pool.
 * Transactions are not part of this interface but for two fixed shapes (noted, atomically): each
 * backend keeps its own (SQLite's synchronous, on its one connection), in its files of the same name.
 */
import type { Note } from '../events/note.ts';

export type Row = Record<string, unknown>;

/** What both drivers bind: booleans are passed as 1 and 0 (PostgreSQL reads '1' and '0' as booleans). */
export type Param = string | number | null | Uint8Array;

export interface Sql {
  get(sql: string, ...params: Param[]): Promise<Row | undefined>;
  all(sql: string, ...params: Param[]): Promise<Row[]>;
  /** Rows as arrays of column values in SELECT order: the list queries read them this way, for speed. */
  arrays(sql: string, ...params: Param[]): Promise<unknown[][]>;
  /** Runs a statement; the number of rows it changed. */
  run(sql: string, ...params: Param[]): Promise<number>;
  /**
   * As run, for the writes that must go through on a full disk because they free space or let an
   * operator in (sign-in, revocation, deletion): SQLite draws on its reserve (sqlite/reserve.ts).
   */
  critical(sql: string, ...params: Param[]): Promise<number>;
  /**
   * The one condition written per backend: the devices whose id or name holds `q` (at least three
   * characters, any case), through SQLite's FTS5 trigram table or PostgreSQL's pg_trgm index.
   * `fewDevices`: the list is one owner's, small enough to read whole (OWNER_SCAN_DEVICES), and
   * PostgreSQL checks each of its devices rather than read the trigram index.
   */
  searchDevices(q: string, fewDevices?: boolean): { sql: string; params: Param[] };
  /**
   * Runs `sql` (a change with RETURNING) and, in the same transaction, writes the webhook notes
   * that `notes` makes of its rows (store/outbox.ts): a change and its messages commit together.
   * A critical write, as `critical`.
   */
  noted(notes: (rows: Row[]) => readonly Note[], sql: string, ...params: Param[]): Promise<Row[]>;
  /** Runs the statements in one transaction; the rows each changed. */
  atomically(statements: ReadonlyArray<readonly [string, Param[]]>): Promise<number[]>;
  /** `FOR UPDATE SKIP LOCKED` on PostgreSQL (claims); nothing on SQLite, which has one writer. */
  readonly skipLocked: string;
  /** The webhook outbox's fan-out, written per backend (outbox.ts fanOutSql): statements of one `?`, a limit. */
  readonly fanOut: readonly string[];
}

/** `?` placeholders numbered `$1`, `$2`… for PostgreSQL; the statements hold no `?` in a literal. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replaceAll('?', () => `$${++n}`);
}

/** The scoping parameters of docs/contract.md section 4: `(? OR owner = ?)` matches everything for admins. */
export function scope(viewer: { admin: boolean; subject: string }): [number, string] {
  return [viewer.admin ? 1 : 0, viewer.subject];
}

/**
 * A statement over the counters for a viewer: an administrator's `all` sums every owner's rows, an
 * owner's `own` reads its own by the primary key. Two statements, not one with `(? OR owner = ?)`
 * as `scope` gives: the generic plan PostgreSQL settles on for a statement prepared on a pooled
 * connection cannot use the key for that, and read the whole table.
 */
export function counted(
  viewer: { admin: boolean; subject: string },
  statements: { all: string; own: string },
): [string, ...Param[]] {
  return viewer.admin ? [statements.all] : [statements.own, viewer.subject];
}

/** The `all` statement over the counters and its owner's `own`, which adds `WHERE owner = ?`. */
export function allAndOwn(all: string): { all: string; own: string } {
  return { all, own: `${all} WHERE owner = ?` };
}
