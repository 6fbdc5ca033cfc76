/**
 * The device search's rare trigrams (docs/contract.md section 22: every filter of the device list at
 * 0.8 of the plain list's rate). Both backends find `q` through a trigram index, whose cost is the
 * posting lists of `q`'s trigrams: a trigram most devices hold has one as long as the fleet. At
 * 100,000 devices named "bench device N", `q=device 123` read 191 pages of PostgreSQL's index for
 * 112 devices (1.8 ms), where its one rare trigram ("123") reads 3; SQLite's FTS5 phrase took
 * 128 µs, its two rarest trigrams 29 µs (bench/results.md).
 *
 * So each backend asks its index for the query's rare trigrams only, when a sample of the fleet
 * shows some, and checks each device found for the whole text. Which trigrams drive changes what a
 * search costs, never what it finds. The sample is a few hundred devices drawn at random by their
 * seq (a uniform draw: the statistics ANALYZE keeps are spaced in the order of the texts, and a
 * fleet whose ids and names follow one pattern gave a histogram that held a single name), read
 * again at most once a minute, in the background.
 */

/** The range of the devices' seqs, from the primary key's two ends: where the sample is drawn. */
export const SEQ_RANGE_SQL = 'SELECT min(seq) AS low, max(seq) AS high FROM devices';

/** Seqs drawn for the sample (a deleted device's draws nothing). */
export const SAMPLE_SIZE = 256;

const SAMPLE_MS = 60_000;

/** A trigram is rare when at most this share of the sampled texts holds it (4 of 256). */
const RARE_SHARE = 1 / 64;

/** Too few texts to tell rare from common (a small fleet, whose search is cheap anyway). */
const SAMPLE_AT_LEAST = 64;

/** At most this many rare trigrams go to the index: each more shortens the candidates, and costs a posting list. */
const DRIVING_AT_MOST = 4;

/** At most this many less common trigrams drive a walk of the index (lessCommonTrigrams). */
const WALK_DRIVING_AT_MOST = 2;

/** The trigrams of a lower-cased text that a backend's index can be asked for, each once. */
export type Trigrams = (text: string) => Set<string>;

/** A text of printable ASCII only. */
export const ASCII = /^[\x20-\x7e]+$/;

/** Counted over every three characters of a sampled text, whatever they are. */
export function sampledTrigrams(text: string): Set<string> {
  const found = new Set<string>();
  for (let i = 0; i + 3 <= text.length; i++) found.add(text.slice(i, i + 3));
  return found;
}

/** Every trigram of a text of printable ASCII (FTS5's trigram tokenizer spans spaces and punctuation). */
export function asciiTrigrams(text: string): Set<string> {
  return ASCII.test(text) ? sampledTrigrams(text) : new Set();
}

/**
 * The trigrams of a text that are printable ASCII, wherever they are in it: what PostgreSQL's
 * device_trigrams holds of each device (migration 'device-trigrams').
 */
export function printableTrigrams(text: string): Set<string> {
  return new Set([...sampledTrigrams(text)].filter((t) => ASCII.test(t)));
}

/** The sampled texts (lower-cased, newest device first) and their trigrams, with the number of texts holding each. */
export interface TrigramSample {
  held: ReadonlyMap<string, number>;
  lowered: readonly string[];
}

export function trigramSample(texts: readonly string[], trigrams: Trigrams): TrigramSample {
  const held = new Map<string, number>();
  const lowered = texts.map((text) => text.toLowerCase());
  for (const text of lowered) for (const t of trigrams(text)) held.set(t, (held.get(t) ?? 0) + 1);
  return { held, lowered };
}

/**
 * Whether at least half the sampled texts hold the whole of `q`: a list of newest devices checked
 * one by one fills a page within about a hundred of them (none when the sample is too small).
 */
export function heldByMost(q: string, sample: TrigramSample | undefined): boolean {
  if (sample === undefined || sample.lowered.length < SAMPLE_AT_LEAST) return false;
  const whole = q.toLowerCase();
  return sample.lowered.filter((text) => text.includes(whole)).length * 2 >= sample.lowered.length;
}

/** A walk of the newest devices reads more than this share of the fleet before its first match: the matches are old. */
const OLD_MATCHES_AFTER = 1 / 8;

/**
 * Whether the devices holding `q` are all old, by the sample (newest first): a walk of the list's
 * own index, newest first, would read more than an eighth of the fleet before its first match. When
 * no sampled text holds `q` its matches are few, wherever they are: sorting them bets they are not
 * all among the newest. False when the sample is too small to tell.
 */
export function matchesAreOld(q: string, sample: TrigramSample | undefined): boolean {
  if (sample === undefined || sample.lowered.length < SAMPLE_AT_LEAST) return false;
  const whole = q.toLowerCase();
  const first = sample.lowered.findIndex((text) => text.includes(whole));
  return first === -1 || first > sample.lowered.length * OLD_MATCHES_AFTER;
}

/** The query's trigrams with the number of sampled texts holding each, rarest first (none when the sample is too small to tell). */
function byRarity(q: string, sample: TrigramSample | undefined, trigrams: Trigrams): Array<readonly [string, number]> {
  if (sample === undefined || sample.lowered.length < SAMPLE_AT_LEAST) return [];
  return [...trigrams(q.toLowerCase())]
    .map((t) => [t, sample.held.get(t) ?? 0] as const)
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
}

/** The query's rare trigrams by the sample, rarest first (none when the sample is too small to tell). */
export function rareTrigrams(q: string, sample: TrigramSample | undefined, trigrams: Trigrams): string[] {
  const atMost = sample === undefined ? 0 : Math.floor(sample.lowered.length * RARE_SHARE);
  return byRarity(q, sample, trigrams)
    .filter(([, n]) => n <= atMost)
    .slice(0, DRIVING_AT_MOST)
    .map(([t]) => t);
}

/**
 * The query's least common trigrams, each held by fewer than half the sampled texts, rarest first
 * (at most two): what an index read newest first is asked for (on SQLite when no trigram is rare,
 * on PostgreSQL the first, whichever it is: store/postgres/device_search.ts). SQLite's
 * FTS5 reads a term's whole list to walk it backwards, so a phrase of trigrams every device holds
 * costs five lists as long as the fleet in the bench's fleet, where "e 1" alone is a ninth of one (`q=device 1`).
 */
export function lessCommonTrigrams(q: string, sample: TrigramSample | undefined, trigrams: Trigrams): string[] {
  const under = sample === undefined ? 0 : sample.lowered.length / 2;
  return byRarity(q, sample, trigrams)
    .filter(([, n]) => n < under)
    .slice(0, WALK_DRIVING_AT_MOST)
    .map(([t]) => t);
}

/** SAMPLE_SIZE seqs drawn at random from `low` to `high`, as the list of the sample's statement. */
export function sampleSeqs(low: number, high: number, random: () => number = Math.random): string {
  const span = high - low + 1;
  return Array.from({ length: SAMPLE_SIZE }, () => low + Math.floor(random() * span)).join(',');
}

/**
 * The sample as last read: `read` again when it is a minute old, in the background (a search
 * meanwhile uses the sample there is; before the first, none). A failed read keeps the last one.
 */
export function keptSample(
  read: () => Promise<TrigramSample | undefined>,
  now: () => number = Date.now,
): () => TrigramSample | undefined {
  let sample: TrigramSample | undefined;
  let readAt = -Infinity;
  return () => {
    if (now() - readAt >= SAMPLE_MS) {
      readAt = now();
      read().then(
        (fresh) => (sample = fresh),
        () => undefined,
      );
    }
    return sample;
  };
}
