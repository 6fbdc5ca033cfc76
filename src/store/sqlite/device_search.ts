/**
 * The device search on SQLite (docs/contract.md sections 9 and 22: `q`, a substring of id or name,
 * any case) through the FTS5 trigram table devices_search (migration 'fleet-lists'): a phrase
 * query, which the trigram tokenizer answers as a case-insensitive substring match over both
 * columns from its index (LIKE with an ESCAPE clause would read the whole table). Inside a phrase
 * every character is literal but `"`, which is doubled.
 *
 * When a sample of the fleet shows some of the query's trigrams to be rare (store/device_search.ts),
 * the index is asked for those alone and each device found is checked for the whole text with
 * instr. SQLite's lower() folds ASCII letters only, so only a query of printable ASCII is driven
 * so, and a query in ASCII is checked with instr in every form, so that the sample never
 * changes what a search finds: a name holding a letter outside ASCII that Unicode folds into
 * ASCII, such as the Kelvin sign, is found by its own letter only. Any other query goes to the
 * index whole, as the tokenizer folds it.
 */
import {
  ASCII,
  asciiTrigrams,
  heldByMost,
  keptSample,
  lessCommonTrigrams,
  rareTrigrams,
  sampledTrigrams,
  sampleSeqs,
  SEQ_RANGE_SQL,
  trigramSample,
  type TrigramSample,
} from '../device_search.ts';
import type { DeviceSearch, Param, Row, Sql } from '../sql.ts';

const phrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

const INSTR = 'instr(lower(id || char(1) || name), ?) > 0';
const MATCHES = 'SELECT rowid AS m FROM devices_search WHERE devices_search MATCH ?';

/**
 * The search's condition: the rare trigrams of `q` and instr of the whole text; instr alone when
 * most of the fleet holds `q` (the list's own index walked, each device checked, where the
 * index's matches would all be listed before the page: 17.8 ms at 100,000 devices for
 * `q=bench`); else the whole phrase. With the index's matches, its walk newest first
 * (DeviceSearch.walk): FTS5 reads its lists in rowid order, which is the devices' seq.
 */
export function sqliteSearchDevices(q: string, _fewDevices = false, sample?: TrigramSample): DeviceSearch {
  const whole = q.toLowerCase();
  // Only a query in ASCII has rare trigrams (asciiTrigrams), and it is checked by instr in every
  // form, so that what it finds never depends on the sample; any other is the tokenizer's alone.
  const ascii = ASCII.test(q);
  const driving = rareTrigrams(q, sample, asciiTrigrams);
  if (ascii && driving.length === 0 && heldByMost(q, sample)) return { sql: INSTR, params: [whole] };
  const match = driving.length > 0 ? driving.map(phrase).join(' AND ') : phrase(q);
  // The walk reads each term's whole list: without a rare trigram, the least common ones (each
  // checked by instr, as every form of a query in ASCII is) rather than a phrase of common ones.
  const fewer = ascii && driving.length === 0 ? lessCommonTrigrams(q, sample, asciiTrigrams) : [];
  const walked = fewer.length > 0 ? fewer.map(phrase).join(' AND ') : match;
  const [check, checkParams]: [string, Param[]] = ascii ? [INSTR, [whole]] : ['', []];
  return {
    sql: ascii ? `seq IN (${MATCHES}) AND ${INSTR}` : `seq IN (${MATCHES})`,
    params: [match, ...checkParams],
    walk: { matches: MATCHES, matchParams: [walked], key: 'rowid', on: 'seq = m', check, checkParams },
  };
}

/** The texts of the devices at these seqs (a comma-separated list), by the primary key. */
const sampleSql = `SELECT id, name FROM devices WHERE seq IN (SELECT value FROM json_each('[' || ? || ']')) ORDER BY seq DESC`;

/** A sample of the devices' texts (store/device_search.ts); undefined without devices. */
export function readTrigramSample(
  all: (sql: string, ...params: Param[]) => Row[],
  random?: () => number,
): TrigramSample | undefined {
  const [range] = all(SEQ_RANGE_SQL);
  if (range?.low === null || range?.low === undefined) return undefined;
  const rows = all(sampleSql, sampleSeqs(Number(range.low), Number(range.high), random));
  return trigramSample(
    rows.map((r) => `${String(r.id)}\u0001${String(r.name)}`),
    sampledTrigrams,
  );
}

/** Sql.searchDevices with the sample kept (read once a minute). */
export function sqliteDeviceSearch(
  all: (sql: string, ...params: Param[]) => Row[],
  now?: () => number,
): Sql['searchDevices'] {
  const sample = keptSample(async () => readTrigramSample(all), now);
  return (q, fewDevices) => sqliteSearchDevices(q, fewDevices, sample());
}
