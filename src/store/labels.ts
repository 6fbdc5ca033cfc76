/**
 * Device labels (docs/contract.md section 12): the statements, written once for both stores. A change of a
 * device's labels reads and writes in one transaction, so the limit of 20 holds against concurrent
 * changes; each backend writes that transaction in its own labels.ts with these statements.
 */
import { changedLabels, type Labels, type LabelSelector, type LabelsRead, emptyLabels } from '../domain/labels.ts';
import type { Page } from '../domain/paging.ts';
import { page } from './rows.ts';
import { IN_SCOPE, type Param, type Row, type Sql } from './sql.ts';

export const labelsSql = {
  /** A device's seq in the viewer's scope; the transaction's first statement (PostgreSQL adds FOR UPDATE). */
  device: `SELECT seq FROM devices WHERE id = ? AND ${IN_SCOPE}`,
  ofSeq: 'SELECT key, value FROM device_labels WHERE device_seq = ? ORDER BY key',
  put: `INSERT INTO device_labels (device_seq, key, value) VALUES (?, ?, ?)
    ON CONFLICT (device_seq, key) DO UPDATE SET value = excluded.value`,
  remove: 'DELETE FROM device_labels WHERE device_seq = ? AND key = ?',
} as const;

/**
 * The labels of up to a page of devices, by their seqs (the first column of every list query):
 * one statement that reads the primary key of device_labels only.
 */
export function labelsOfSeqsSql(count: number): string {
  return `SELECT device_seq, key, value FROM device_labels
    WHERE device_seq IN (${Array.from({ length: count }, () => '?').join(', ')}) ORDER BY device_seq, key`;
}

/**
 * Rows of [device_seq, key, value] (read as arrays) as each seq's labels; a device without labels
 * gets an empty set. Arrays, not row objects: a page of devices has up to 20 labels each, and
 * node:sqlite's row objects (null prototype) cost twice as much to make and to read.
 */
export function labelsBySeq(seqs: readonly number[], rows: readonly (readonly unknown[])[]): Map<number, Labels> {
  const out = new Map<number, Record<string, string>>(seqs.map((seq) => [seq, emptyLabels()]));
  for (const [seq, key, value] of rows) {
    const set = out.get(Number(seq));
    if (set) set[key as string] = value as string;
  }
  return out;
}

/**
 * A page's devices with their labels: the list read its rows (seq first) and this one more
 * statement reads every label of the page. Nothing on the control path calls it.
 */
export async function withLabels<T>(
  db: Sql,
  rows: readonly (readonly unknown[])[],
  limit: number,
  map: (row: unknown[]) => T,
): Promise<Page<T & { labels: Labels }>> {
  const shown = rows.slice(0, limit);
  const seqs = shown.map((r) => Number(r[0]));
  const sets =
    seqs.length === 0
      ? new Map<number, Labels>()
      : labelsBySeq(seqs, await db.arrays(labelsOfSeqsSql(seqs.length), ...seqs));
  return page(rows as unknown[][], limit, (r) => ({ ...map(r), labels: sets.get(Number(r[0])) ?? emptyLabels() }));
}

/** Rows of (key, value) as one set. */
export function labelsFrom(rows: readonly Row[]): Labels {
  const set = emptyLabels();
  for (const r of rows) set[r.key as string] = r.value as string;
  return set;
}

/** What a change asks: `replace` sets the whole set (the device page), else `set` and `remove` apply to it. */
export interface LabelChange {
  replace?: Labels | undefined;
  set?: Labels | undefined;
  remove?: readonly string[] | undefined;
}

export type LabelChangeOutcome =
  | { outcome: 'changed'; labels: Labels; changed: string[] }
  | { outcome: 'refused'; error: string }
  | { outcome: 'unknown' };

/**
 * The new set from the current one, and the statements that turn one into the other: removed keys
 * deleted, new and changed values written, unchanged ones left alone.
 */
export function planLabelChange(
  seq: number,
  current: Labels,
  change: LabelChange,
): LabelsRead<{ labels: Labels; changed: string[]; statements: Array<[string, ...Param[]]> }> {
  const remove = change.replace
    ? Object.keys(current).filter((key) => !Object.hasOwn(change.replace as Labels, key))
    : (change.remove ?? []);
  const read = changedLabels(current, change.replace ?? change.set ?? {}, remove);
  if (!read.ok) return read;
  const { labels, changed } = read.value;
  const statements: Array<[string, ...Param[]]> = changed.map((key) =>
    Object.hasOwn(labels, key) ? [labelsSql.put, seq, key, labels[key] as string] : [labelsSql.remove, seq, key],
  );
  return { ok: true, value: { labels, changed, statements } };
}

/**
 * The label filters as conditions on `devices` (an EXISTS on the primary key per label), for
 * lists driven by another index (an owner's devices, or another sort).
 */
export function labelConditions(selectors: readonly LabelSelector[]): { sql: string[]; params: Param[] } {
  const sql: string[] = [];
  const params: Param[] = [];
  for (const s of selectors) {
    if (s.value === undefined) {
      sql.push('EXISTS (SELECT 1 FROM device_labels l WHERE l.device_seq = devices.seq AND l.key = ?)');
      params.push(s.key);
    } else {
      sql.push('EXISTS (SELECT 1 FROM device_labels l WHERE l.device_seq = devices.seq AND l.key = ? AND l.value = ?)');
      params.push(s.key, s.value);
    }
  }
  return { sql, params };
}

/** The labels a token gives its devices, as stored (a JSON object). */
export function tokenLabelsJson(labels: Labels | undefined): string {
  return JSON.stringify(labels ?? {});
}

/** A token's stored labels; anything but an object of strings reads as none, never a crash. */
export function tokenLabelsFrom(text: unknown): Labels {
  const set = emptyLabels();
  try {
    const parsed: unknown = JSON.parse(typeof text === 'string' ? text : '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') set[key] = value;
  } catch {
    // A damaged value gives no labels: enrollment goes on, as it did before labels existed.
  }
  return set;
}
