/**
 * Uploads on SQLite: arriving together, they are written in one transaction (group commit), each
 * in a savepoint of its own.
 */
import { chunksOf, CREDENTIAL_HELD, deviceCheckArgs, insertArgs, runsSql, touchArgs } from '../runs.ts';
import type { RunsStore } from '../store.ts';
import type { PutRunResult, Run } from '../../domain/runs.ts';
import type { Note } from '../../events/note.ts';
import { noteRow, type Subscription, subscriptionsFrom, subscriptionsSql } from '../outbox.ts';
import type { Db } from './db.ts';
import { indexTextOf } from '../../domain/words.ts';
import type { ListOptions } from '../owners_reach.ts';

/** At most this many uploads share one transaction; the rest go in the next. */
const MAX_BATCH = 256;

/** Checked inside the transaction, so a revoke (or a credential change) that lands first refuses the upload. */
const insertRun = `WITH device AS (SELECT id, owner FROM devices WHERE id = ? AND ${CREDENTIAL_HELD} AND revoked_at IS NULL)
  INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, chunked, body, receipt)
  SELECT id, ?, owner, ?, ?, ?, ?, ?, ?, ?, ? FROM device WHERE true
  ON CONFLICT (device_id, id) DO NOTHING RETURNING seq`;
/** The run's words in the search index (migration run-words), keyed by its seq. */
const insertWords = 'INSERT INTO run_words (rowid, words) VALUES (?, ?)';
const deviceActive = `SELECT 1 AS active FROM devices WHERE id = ? AND ${CREDENTIAL_HELD} AND revoked_at IS NULL`;

type Queued = {
  run: Run & { sha256: string };
  /** The run's words for the search index (src/domain/words.ts); undefined for a binary run. */
  words: string | undefined;
  note: Note | undefined;
  resolve: (r: PutRunResult) => void;
  reject: (e: unknown) => void;
};

/**
 * One that fails affects no other, and every promise settles only after COMMIT, so an
 * acknowledged upload is a committed one. The batch is written once the current turn of the event
 * loop has delivered what it read (setImmediate), so a lone upload waits for nothing.
 */
export function sqlitePutRun(db: Db, opts: ListOptions = {}): Pick<RunsStore, 'putRun'> {
  let queue: Queued[] = [];

  function writeQueued(): void {
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(MAX_BATCH);
    if (queue.length > 0) setImmediate(writeQueued);
    const outcomes: Array<{ ok: true; result: PutRunResult } | { ok: false; error: unknown }> = [];
    try {
      db.transaction(() => {
        // The endpoints are read once for the group (outbox.ts), not matched again by each upload.
        const subscriptions = batch.some((q) => q.note) ? subscriptionsFrom(db.all(subscriptionsSql)) : [];
        const indexed: Array<[number, string]> = [];
        for (const { run, words, note } of batch) {
          try {
            const result = db.savepoint(() => put(run, note, subscriptions));
            if (typeof result === 'number') {
              if (words) indexed.push([result, words]);
              outcomes.push({ ok: true, result: 'stored' });
            } else outcomes.push({ ok: true, result });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
        // The group's words go in after its savepoints, in the same transaction: FTS5 flushes
        // what it holds to a new segment at every savepoint, so words written inside them cost a
        // segment (and its merging) a run; here they make one segment a group.
        for (const [seq, words] of indexed) db.run(insertWords, seq, words);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.result);
      else item.reject(outcome?.error);
    });
  }

  /** Writes one upload: its seq when stored, else why not. */
  function put(
    run: Run & { sha256: string },
    note: Note | undefined,
    subscriptions: Subscription[],
  ): number | Exclude<PutRunResult, 'stored'> {
    const inserted = db.get(insertRun, ...deviceCheckArgs(run), ...insertArgs(run).slice(1));
    if (inserted) {
      for (const [n, data] of chunksOf(run.body)) db.run(runsSql.insertChunk, inserted.seq as number, n, data);
      db.run(runsSql.touchDevice, ...touchArgs(run));
      const message = note && noteRow(note, subscriptions);
      if (message) db.run(message[0], ...message[1]);
      return inserted.seq as number;
    }
    if (!db.get(deviceActive, ...deviceCheckArgs(run))) return 'device-unknown';
    return db.get(runsSql.existingSha, run.device, run.id)?.sha256 === run.sha256 ? 'already-stored' : 'conflict';
  }

  return {
    async putRun(run, note) {
      const words = opts.indexRunWords === false ? undefined : await indexTextOf(run.body);
      return new Promise((resolve, reject) => {
        if (queue.push({ run, words, note, resolve, reject }) === 1) setImmediate(writeQueued);
      });
    },
  };
}
