/**
 * Uploads on PostgreSQL. Uploads that arrive together are stored by one statement (group commit):
 * one round trip and one commit for the lot, where each alone would wait for its own flush of the
 * write-ahead log. Every promise settles only after that statement has committed, so an
 * acknowledged upload is a committed one. The statement share-locks the devices' rows, so a revoke
 * (which updates the row) waits for uploads in flight, and uploads that start after a revoke
 * commits see it and store nothing; uploads share that lock and do not wait for one another. A
 * device's last upload is written by a second statement at most once a minute. A large run (stored
 * in chunks) is its own transaction, as before.
 */
import {
  CHUNK_SIZE,
  chunksOf,
  CREDENTIAL_HELD,
  DEVICE_TOUCH_MS,
  deviceCheckArgs,
  insertArgs,
  runsSql,
  touchArgs,
} from '../runs.ts';
import type { RunsStore } from '../store.ts';
import type { PutRunResult, Run } from '../../domain/runs.ts';
import { noteStatement, owedEndpoints, subscribedWhere } from '../outbox.ts';
import type { Note } from '../../events/note.ts';
import type { Row } from '../sql.ts';
import { StoreError } from '../errors.ts';
import { isConnectionError } from './pool.ts';
import { indexTextOf } from '../../domain/words.ts';
import type { ListOptions } from '../owners_reach.ts';
import type { PgDb } from './db.ts';

const putRun = `WITH device AS (
    SELECT id, owner, last_upload_at FROM devices WHERE id = ? AND ${CREDENTIAL_HELD} AND revoked_at IS NULL FOR SHARE
  ), inserted AS (
    INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, chunked, body, receipt, words)
    SELECT id, ?::text, owner, ?::text, ?::text, ?::bigint, ?::text, ?::bigint, ?::int::boolean, ?::bytea, ?::text,
      string_to_array(?::text, ' ') FROM device
    ON CONFLICT (device_id, id) DO NOTHING RETURNING seq
  )
  SELECT (SELECT seq FROM inserted) AS seq, (SELECT last_upload_at FROM device) AS last_upload_at,
    EXISTS (SELECT 1 FROM device) AS active, (SELECT sha256 FROM runs WHERE device_id = ? AND id = ?) AS existing`;

/** CREDENTIAL_HELD for each upload of a group: its device's version is the one the upload read, or any. */
const HELD = 'd.credential_version = coalesce(i.credential_version, d.credential_version)';

/**
 * The same for many runs at once, and their run.stored notes, in one statement (so one implicit
 * transaction, without BEGIN and COMMIT round trips). One array per column ($1…$7, $9), the bodies
 * as one binary parameter ($10) cut by their lengths ($8): an array of bytea would travel as hex
 * text, twice the bytes, each body turned into a string first. The devices are locked in the
 * order of their ids, so two groups (or a group and a bulk revoke, which updates in that order too)
 * never wait for each other in a cycle. A (device, id) appears at most once in a group. A note
 * ($11…$16: noteStatement's parameters, id, event, data, at, pattern, star; NULL for an upload
 * without one) is written as outbox.ts writes one, for a run the statement stored, naming the
 * endpoints subscribed at commit. $17: each upload's credential version (store/runs.ts,
 * CREDENTIAL_HELD), NULL for any. $18: each run's words (src/domain/words.ts), NULL for a binary run.
 */
const putRuns = `WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::bigint[],
      $8::int[], $9::text[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[], $16::int[],
      $17::bigint[], $18::text[])
      WITH ORDINALITY AS i(device_id, id, content_type, privacy, size, sha256, uploaded_at, length, receipt,
        note_id, note_event, note_data, note_at, note_pattern, note_star, credential_version, words, n)
  ), cut AS (
    SELECT i.*, 1 + sum(length) OVER (ORDER BY n) - length AS start FROM input i
  ), device AS (
    SELECT id, owner, last_upload_at, credential_version FROM devices
    WHERE id IN (SELECT device_id FROM input) AND revoked_at IS NULL ORDER BY id FOR SHARE
  ), inserted AS (
    INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, chunked, body, receipt,
      words)
    SELECT i.device_id, i.id, d.owner, i.content_type, i.privacy, i.size, i.sha256, i.uploaded_at, false,
      substring($10::bytea FROM i.start::int FOR i.length), i.receipt, string_to_array(i.words, ' ')
    FROM cut i JOIN device d ON d.id = i.device_id AND ${HELD} ORDER BY i.n
    ON CONFLICT (device_id, id) DO NOTHING RETURNING device_id, id, seq
  ), noted AS (
    INSERT INTO webhook_outbox (id, event, data, created_at, endpoints)
    SELECT i.note_id, i.note_event, i.note_data, i.note_at, s.ids
    FROM input i JOIN inserted x ON x.device_id = i.device_id AND x.id = i.id
      CROSS JOIN LATERAL (${owedEndpoints(subscribedWhere('i.note_pattern', 'i.note_star'))}) s
    WHERE i.note_id IS NOT NULL AND s.ids IS NOT NULL ORDER BY i.n
  )
  SELECT i.n, s.seq, d.last_upload_at, d.id IS NOT NULL AS active,
    (SELECT sha256 FROM runs r WHERE r.device_id = i.device_id AND r.id = i.id) AS existing
  FROM input i LEFT JOIN device d ON d.id = i.device_id AND ${HELD}
    LEFT JOIN inserted s ON s.device_id = i.device_id AND s.id = i.id
  ORDER BY i.n`;

/** At most this many uploads share one statement, and this many statements are in flight at once. */
const MAX_GROUP = 128;
const MAX_IN_FLIGHT = 2;

type Upload = Run & { sha256: string };
type Queued = {
  run: Upload;
  words: string | undefined;
  note: Note | undefined;
  resolve: (row: Row | undefined) => void;
  reject: (e: unknown) => void;
};

export function pgPutRun(db: PgDb, opts: ListOptions = {}): Pick<RunsStore, 'putRun'> {
  let queue: Queued[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= MAX_IN_FLIGHT) return;
    scheduled = true;
    // Once the current turn of the event loop has delivered what it read, so a lone upload waits for nothing.
    setImmediate(() => {
      scheduled = false;
      void writeGroup();
      schedule();
    });
  }

  /** The next group: the oldest queued uploads, each (device, id) once (a repeat waits for the next). */
  function takeGroup(): Queued[] {
    const group: Queued[] = [];
    const keys = new Set<string>();
    const rest: Queued[] = [];
    for (const item of queue) {
      const key = `${item.run.device}\u0000${item.run.id}`;
      if (group.length < MAX_GROUP && !keys.has(key)) {
        keys.add(key);
        group.push(item);
      } else rest.push(item);
    }
    queue = rest;
    return group;
  }

  async function writeGroup(): Promise<void> {
    const group = takeGroup();
    if (group.length === 0) return;
    inFlight++;
    try {
      const rows = group.length === 1 ? undefined : await storeGroup(group).catch(groupFailed);
      if (rows) group.forEach((item, i) => item.resolve(rows[i]));
      // A lone upload, or a group the database refused as a whole (say, one row it rejects): each alone.
      else
        await Promise.all(
          group.map((item) => storeOne(item.run, item.words, item.note).then(item.resolve, item.reject)),
        );
    } catch (err) {
      for (const item of group) item.reject(err);
    } finally {
      inFlight--;
      schedule();
    }
  }

  /** A lost connection fails the whole group; anything else is retried one upload at a time. */
  function groupFailed(err: unknown): undefined {
    if (err instanceof StoreError || isConnectionError(err)) throw err;
    return undefined;
  }

  /** The group's runs and the notes of those stored, in one statement. */
  async function storeGroup(group: Queued[]): Promise<Row[]> {
    // device, id, content type, privacy, size, sha256, uploaded at (chunked is always false here),
    // then the body's length and the receipt; the bodies themselves travel as one parameter.
    const runs: unknown[][] = Array.from({ length: 9 }, () => []);
    const notes: unknown[][] = Array.from({ length: 6 }, () => []);
    const versions: Array<number | null> = [];
    const words: Array<string | null> = [];
    for (const { run, note, words: w } of group) {
      versions.push(deviceCheckArgs(run)[1]);
      words.push(w ?? null);
      const args = insertArgs(run);
      for (let c = 0; c < 7; c++) runs[c]?.push(args[c]);
      runs[7]?.push(run.body.byteLength);
      runs[8]?.push(args[9]);
      const noteArgs = note ? noteStatement(note)[1] : [];
      for (let c = 0; c < 6; c++) notes[c]?.push(noteArgs[c] ?? null);
    }
    const bodies = Buffer.concat(group.map(({ run }) => run.body));
    const rows = await db.rowsOf(putRuns, [...runs, bodies, ...notes, versions, words]);
    if (rows.length !== group.length) throw new Error(`group commit: ${rows.length} answers for ${group.length} runs`);
    return rows;
  }

  /**
   * One upload alone. A large run and its chunks are one transaction, so none is seen without all
   * its bytes; a run.stored note commits with its run.
   */
  async function storeOne(run: Upload, words: string | undefined, note: Note | undefined): Promise<Row | undefined> {
    const chunked = run.body.byteLength > CHUNK_SIZE;
    const args = [...deviceCheckArgs(run), ...insertArgs(run).slice(1), words ?? null, run.device, run.id];
    if (!chunked && !note) return db.sql.get(putRun, ...args);
    return db.transaction(async (q) => {
      const [result] = await q(putRun, ...args);
      if (result?.seq == null) return result;
      for (const [n, data] of chunked ? chunksOf(run.body) : [])
        await q(runsSql.insertChunk, result.seq as number, n, data);
      if (note) {
        const [st, pa] = noteStatement(note);
        await q(st, ...pa);
      }
      return result;
    });
  }

  return {
    async putRun(run, note): Promise<PutRunResult> {
      const words = opts.indexRunWords === false ? undefined : await indexTextOf(run.body);
      // Small uploads that arrive together are stored by one statement (group commit); a large one alone.
      const row =
        run.body.byteLength > CHUNK_SIZE
          ? await storeOne(run, words, note)
          : await new Promise<Row | undefined>((resolve, reject) => {
              queue.push({ run, words, note, resolve, reject });
              schedule();
            });
      if (!row?.active) return 'device-unknown';
      if (row.seq != null) {
        const last = row.last_upload_at as number | null;
        if (last === null || last < run.uploadedAt - DEVICE_TOUCH_MS)
          await db.sql.run(runsSql.touchDevice, ...touchArgs(run));
        return 'stored';
      }
      // Not visible to this statement's snapshot when another upload of this id committed meanwhile.
      const existing =
        (row.existing as string | null) ?? (await db.sql.get(runsSql.existingSha, run.device, run.id))?.sha256;
      return existing === run.sha256 ? 'already-stored' : 'conflict';
    },
  };
}
