/**
 * The device search on PostgreSQL (docs/contract.md sections 9 and 22: `q`, a substring of id or
 * name, any case) through the pg_trgm index devices_search (migration 'fleet-lists'): the whole
 * pattern, or the query's rare trigrams and strpos of the whole text (store/device_search.ts). The
 * list newest first walks device_trigrams instead (migration 'device-trigrams', pgSearchDevices).
 *
 * pg_trgm splits a text into words of letters and digits, and `LIKE '%abc%'` asks the index for
 * the trigram "abc" alone; so only trigrams of ASCII letters and digits inside a word are chosen,
 * each one the whole pattern also asks for.
 */
import { substringPattern } from '../devices.ts';
import {
  keptSample,
  lessCommonTrigrams,
  matchesAreOld,
  printableTrigrams,
  rareTrigrams,
  sampledTrigrams,
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

/** One trigram's devices newest first, from device_trigrams' primary key (migration 'device-trigrams'). */
const TRIGRAM_MATCHES = 'SELECT seq AS m FROM device_trigrams WHERE trigram = ?';

/**
 * The search's condition. `fewDevices`: one owner's few devices, each checked (the owner's index
 * drives). Else the GIN index, asked for the rare trigrams of `q` when the sample names some, else
 * for the whole pattern: the condition of every other order, and of a collection's reach.
 *
 * The list newest first walks the devices of the query's least common trigram (held by fewer than
 * half the sample) in device_trigrams, newest first, and checks each for the whole text. Every
 * device holding `q` holds each of its trigrams, so the walk finds what the pattern finds. Its plan
 * is the same for old matches as for new ones: `q=device 1` at 100,000 devices, whose 11,111 matches
 * are the oldest, reads 51 entries (0.3 ms) where the GIN index's matches sorted took 12-30 ms; and
 * once the statistics of a busy table moved, the planner walked the primary key newest first for
 * the rare trigrams of `q=device 123`, whose matches are old too, reading 88,000 devices a page
 * (0.09 of the plain list's rate, bench/results.md). With no such trigram (a query held by most of
 * the fleet, or of no printable trigram), the pattern's matches are read whole and sorted when the
 * sample shows them all old.
 */
export function pgSearchDevices(q: string, fewDevices = false, sample?: TrigramSample): DeviceSearch {
  const whole = q.toLowerCase();
  const check = `strpos(${SEARCH_TEXT}, ?) > 0`;
  if (fewDevices) return { sql: check, params: [whole] };
  const driving = rareTrigrams(q, sample, wordTrigrams);
  const condition =
    driving.length === 0
      ? { sql: `${SEARCH_TEXT} LIKE ? ESCAPE '\\'`, params: [substringPattern(q)] }
      : {
          sql: [...driving.map(() => `${SEARCH_TEXT} LIKE ?`), check].join(' AND '),
          // A trigram of letters and digits holds no wildcard.
          params: [...driving.map((t) => `%${t}%`), whole],
        };
  const [walked] = lessCommonTrigrams(whole, sample, printableTrigrams);
  if (walked === undefined) return { ...condition, ...(matchesAreOld(q, sample) ? { sorted: true } : {}) };
  return {
    ...condition,
    // `+ 0` keeps the planner from merging the walk with the primary key walked backwards, which
    // reads every device newer than the first match.
    walk: {
      matches: TRIGRAM_MATCHES,
      matchParams: [walked],
      key: 'seq',
      on: 'seq = m + 0',
      check,
      checkParams: [whole],
    },
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
  return Array.isArray(texts) ? trigramSample(texts.map(String), sampledTrigrams) : undefined;
}

/** Sql.searchDevices with the sample kept (read once a minute, in the background). */
export function pgDeviceSearch(
  get: (sql: string, ...params: Param[]) => Promise<Row | undefined>,
  now?: () => number,
): Sql['searchDevices'] {
  const sample = keptSample(() => readTrigramSample(get), now);
  return (q, fewDevices) => pgSearchDevices(q, fewDevices, sample());
}
