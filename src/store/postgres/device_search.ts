/**
 * The device search on PostgreSQL (docs/contract.md sections 9 and 22: `q`, a substring of id or
 * name, any case) through the pg_trgm index devices_search (migration 'fleet-lists'): the whole
 * pattern, or the query's rare trigrams and strpos of the whole text (store/device_search.ts).
 *
 * pg_trgm splits a text into words of letters and digits, and `LIKE '%abc%'` asks the index for
 * the trigram "abc" alone; so only trigrams of ASCII letters and digits inside a word are chosen,
 * each one the whole pattern also asks for.
 */
import { substringPattern } from '../devices.ts';
import {
  keptSample,
  matchesAreOld,
  rareTrigrams,
  sampleSeqs,
  SEQ_RANGE_SQL,
  trigramSample,
  type TrigramSample,
} from '../device_search.ts';
import type { DeviceSearch, Param, Row, Sql } from '../sql.ts';

/** The text searched, as the index devices_search holds it: a statement that holds it is planned for each pattern (db.ts). */
export const SEARCH_TEXT = 'lower(id || chr(1) || name)';
/** The texts of the devices at these seqs (a comma-separated list), by the primary key. */
const sampleSql = `SELECT array_agg(${SEARCH_TEXT} ORDER BY seq DESC) AS texts FROM devices WHERE seq = ANY (string_to_array(?, ',')::bigint[])`;

/** The trigrams of ASCII letters and digits inside pg_trgm's words. */
export function wordTrigrams(text: string): Set<string> {
  const found = new Set<string>();
  for (const run of text.match(/[a-z0-9]{3,}/g) ?? [])
    for (let i = 0; i + 3 <= run.length; i++) found.add(run.slice(i, i + 3));
  return found;
}

/**
 * The search's condition. `fewDevices`: one owner's few devices, each checked (the owner's index
 * drives). Else the index, asked for the rare trigrams of `q` when the sample names some; else the
 * whole pattern, whose matches are read whole and sorted when the sample shows them all old
 * (`q=device 1` at 100,000 devices: the primary key walked newest first read 80,000 devices before
 * its first match, 109 ms, where the index's 11,111 matches sorted took 12 ms).
 */
export function pgSearchDevices(q: string, fewDevices = false, sample?: TrigramSample): DeviceSearch {
  const whole = q.toLowerCase();
  if (fewDevices) return { sql: `strpos(${SEARCH_TEXT}, ?) > 0`, params: [whole] };
  const driving = rareTrigrams(q, sample, wordTrigrams);
  if (driving.length === 0)
    return {
      sql: `${SEARCH_TEXT} LIKE ? ESCAPE '\\'`,
      params: [substringPattern(q)],
      ...(matchesAreOld(q, sample) ? { sorted: true } : {}),
    };
  return {
    sql: [...driving.map(() => `${SEARCH_TEXT} LIKE ?`), `strpos(${SEARCH_TEXT}, ?) > 0`].join(' AND '),
    // A trigram of letters and digits holds no wildcard.
    params: [...driving.map((t) => `%${t}%`), whole],
  };
}

/** A sample of the devices' texts (store/device_search.ts); undefined without devices. */
export async function readTrigramSample(
  get: (sql: string, ...params: Param[]) => Promise<Row | undefined>,
  random?: () => number,
): Promise<TrigramSample | undefined> {
  const range = await get(SEQ_RANGE_SQL);
  if (range?.low === null || range?.low === undefined) return undefined;
  const texts = (await get(sampleSql, sampleSeqs(Number(range.low), Number(range.high), random)))?.texts;
  return Array.isArray(texts) ? trigramSample(texts.map(String), wordTrigrams) : undefined;
}

/** Sql.searchDevices with the sample kept (read once a minute, in the background). */
export function pgDeviceSearch(
  get: (sql: string, ...params: Param[]) => Promise<Row | undefined>,
  now?: () => number,
): Sql['searchDevices'] {
  const sample = keptSample(() => readTrigramSample(get), now);
  return (q, fewDevices) => pgSearchDevices(q, fewDevices, sample());
}
