/**
 * What the domain files of the store need of a database: statements written once, with `?`
 * placeholders, run on either backend. SQLite runs them synchronously on its one connection and
 * answers with settled promises; PostgreSQL numbers the placeholders and runs them on its pool.
 * Transactions are not part of this interface but for two fixed shapes (noted, atomically): each
 * backend keeps its own (SQLite's synchronous, on its one connection), in its files of the same name.
 */
import type { Note } from '../events/note.ts';
import { GROUP_PREFIX, ownersOf } from '../domain/owners.ts';

export type Row = Record<string, unknown>;

/** What both drivers bind: booleans are passed as 1 and 0 (PostgreSQL reads '1' and '0' as booleans). */
export type Param = string | number | null | Uint8Array;

/**
 * The device search's condition on `devices` (Sql.searchDevices). `walk`, where the backend has it:
 * a statement whose one column `m` is the matching seqs, read newest first from the index with
 * `AND <key> < ?` appended for a cursor, joined to each device `on` its condition, and the
 * condition left to check on each device it gives.
 */
export interface DeviceSearch {
  sql: string;
  params: Param[];
  /**
   * Read every match from the index and sort them, rather than walk the list's own index newest
   * first and check each device: the sample shows the matches to be old, so the walk would read
   * most of the fleet before a page.
   */
  sorted?: boolean;
  walk?: { matches: string; matchParams: Param[]; key: string; on: string; check: string; checkParams: Param[] };
}

/** A search's candidate runs (Sql.runCandidates): statements and their parameters. */
export interface RunCandidates {
  sql: string;
  params: Param[];
  examined: { sql: string; params: Param[] };
}

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
  searchDevices(q: string, fewDevices?: boolean): DeviceSearch;
  /**
   * The other condition written per backend (docs/contract.md section 21): a statement whose one
   * column, `seq`, is the runs holding every word (src/domain/words.ts) with `atLeast <= seq <
   * below`, newest first, at most `cap` of them; and `examined`, the seqs it read its way through
   * (at most `cap`: when that many, the page stopped at the cap and the next starts below their
   * least). SQLite reads its FTS5 table; PostgreSQL the GIN index, or walks the newest runs when
   * every word is common (store/postgres/run_words.ts).
   */
  runCandidates(words: readonly string[], below: number, atLeast: number, cap: number): Promise<RunCandidates>;
  /** The statements that write a stored run's words into the index, unless the run is gone (the backfill's). */
  indexWords(seq: number, words: string): ReadonlyArray<readonly [string, Param[]]>;
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
  /** Whether byOwners limits each owner's arm itself (PostgreSQL) or lets the merge stop it (SQLite). */
  readonly limitEachArm: boolean;
  /** The webhook outbox's fan-out, written per backend (outbox.ts fanOutSql): statements of one `?`, a limit. */
  readonly fanOut: readonly string[];
}

/** `?` placeholders numbered `$1`, `$2`… for PostgreSQL; the statements hold no `?` in a literal. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replaceAll('?', () => `$${++n}`);
}

/**
 * Whether `column` (an owner) is the account's subject or one of its groups as the store holds them
 * (docs/contract.md sections 4 and 19), read by account_groups' primary key: the scope condition
 * of a row found by its own key. Its parameters are `owned(viewer)`. The lists, which walk the
 * owners' index, name the owners instead (`ownersOf`, `byOwners`).
 */
export function ownedSql(column: string): string {
  return `(${column} = ? OR ${column} IN (SELECT '${GROUP_PREFIX}' || g.group_name FROM account_groups g WHERE g.subject = ?))`;
}

/** The parameters of ownedSql: the account's subject, twice. */
export function owned(viewer: { subject: string }): [string, string] {
  return [viewer.subject, viewer.subject];
}

/** The scope condition on `owner` (docs/contract.md sections 4 and 19): everything for admins, else ownedSql. */
export const IN_SCOPE = `(? OR ${ownedSql('owner')})`;

/** The parameters of IN_SCOPE. */
export function scope(viewer: { admin: boolean; subject: string }): [number, string, string] {
  return [viewer.admin ? 1 : 0, ...owned(viewer)];
}

/** `?, ?, …`: n placeholders. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * A statement over the counters for a viewer: an administrator's `all` sums every owner's rows, an
 * owner's `own` reads its own by the primary key, and an account with groups reads each of its
 * owners so (`WHERE owner IN (…)`). Not one statement with IN_SCOPE: the generic plan PostgreSQL
 * settles on for a statement prepared on a pooled connection cannot use the key for that, and
 * read the whole table.
 */
export function counted(
  viewer: { admin: boolean; subject: string; groups?: readonly string[] },
  statements: { all: string; own: string },
): [string, ...Param[]] {
  if (viewer.admin) return [statements.all];
  const owners = ownersOf(viewer);
  return owners.length === 1
    ? [statements.own, viewer.subject]
    : [`${statements.all} WHERE owner IN (${placeholders(owners.length)})`, ...owners];
}

/**
 * How many rows a list's own statement yields (a statement with a LIMIT, so a count stops where its
 * page would: docs/contract.md section 22's totals).
 */
export async function rowsYielded(db: Pick<Sql, 'get'>, sql: string, params: readonly Param[]): Promise<number> {
  return Number((await db.get(`SELECT count(*) AS n FROM (${sql}) AS yielded`, ...params))?.n ?? 0);
}

/** The `all` statement over the counters and its owner's `own`, which adds `WHERE owner = ?`. */
export function allAndOwn(all: string): { all: string; own: string } {
  return { all, own: `${all} WHERE owner = ?` };
}

/**
 * A list over several owners (an account's own and its groups', docs/contract.md section 19),
 * newest first: each owner's list walks its own index from the cursor, and the lists are merged in
 * order, so a page reads about a page of index entries per owner, whatever the fleet.
 *
 * `arm` is `SELECT seq, … FROM t WHERE owner = ?` followed by ` AND …` conditions whose parameters
 * are `params`; each owner's arm binds its owner then those. PostgreSQL (15) merges the arms in
 * order only when each is limited (Merge Append of Limits); SQLite merges plain arms lazily, and
 * would sort limited ones again (Sql.limitEachArm). On SQLite, owners holding few rows together
 * are read whole instead (owners_reach.ts).
 */
export function byOwners(
  db: Pick<Sql, 'limitEachArm'>,
  owners: readonly string[],
  arm: string,
  params: readonly Param[],
  limit: number,
): { sql: string; params: Param[] } {
  const arms = owners.map((_, i) =>
    db.limitEachArm ? `SELECT * FROM (${arm} ORDER BY seq DESC LIMIT ?) AS o${i}` : arm,
  );
  const all: Param[] = owners.flatMap((o) => (db.limitEachArm ? [o, ...params, limit] : [o, ...params]));
  return { sql: `${arms.join(' UNION ALL ')} ORDER BY seq DESC LIMIT ?`, params: [...all, limit] };
}

/** A statement and its parameters as `db.arrays` and `db.all` take them. */
export function merged(q: { sql: string; params: Param[] }): [string, ...Param[]] {
  return [q.sql, ...q.params];
}
