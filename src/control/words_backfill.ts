/**
 * The search index's backfill (docs/contract.md section 21): the runs stored before the index
 * existed are indexed in the background, newest first, a hundred at a time, each read a chunk at a
 * time and its words written with the run (store.indexRunWords). How far it got is the setting
 * `run_words_backfill_below` (the migration run-words set it above the newest run then stored), moved by
 * compare-and-set, so instances sharing a store share the work and a restart goes on where it stopped.
 */
import type { Store } from '../store/store.ts';
import { readUpTo } from '../domain/run_bytes.ts';
import { RUN_LIMIT } from '../domain/runs.ts';
import { indexTextOf } from '../domain/words.ts';

export const BACKFILL_SETTING = 'run_words_backfill_below';
const BATCH = 100;

/** The backfill reads runs as the system does, whatever their owner. */
const SYSTEM = { subject: 'system', admin: true };

export interface WordsBackfill {
  /** Indexes what is left, until done or stopped; how many runs it indexed. */
  run(): Promise<number>;
  stop(): void;
}

export function wordsBackfill(store: Store): WordsBackfill {
  let stopped = false;
  return {
    async run() {
      let indexed = 0;
      while (!stopped) {
        const mark = await store.getSetting(BACKFILL_SETTING);
        const below = Number(mark);
        if (mark === undefined || !(below > 1)) return indexed;
        const batch = await store.runsBelow(below, BATCH);
        for (const { seq, device, id } of batch) {
          if (stopped) return indexed;
          const run = await store.runVisibleTo(SYSTEM, device, id);
          const body = run && (await readUpTo(run, RUN_LIMIT));
          const words = body && (await indexTextOf(body));
          if (words) await store.indexRunWords(seq, words);
          indexed++;
        }
        const next = batch.at(-1)?.seq ?? 0;
        // Another instance moved the mark: read it again and go on from there.
        await store.replaceSetting(BACKFILL_SETTING, mark, String(batch.length < BATCH ? 0 : next));
      }
      return indexed;
    },
    stop() {
      stopped = true;
    },
  };
}
