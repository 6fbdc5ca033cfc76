/**
 * Uploads on PostgreSQL: one statement, one round trip. It share-locks the device row, so a revoke
 * (which updates the row) waits for uploads in flight, and an upload that starts after a revoke
 * commits sees it and stores nothing; uploads of one device share that lock and do not wait for
 * one another. The device's last upload is written by a second statement at most once a minute.
 */
import { CHUNK_SIZE, chunksOf, DEVICE_TOUCH_MS, insertArgs, runsSql, touchArgs } from '../runs.ts';
import type { RunsStore } from '../store.ts';
import type { PutRunResult } from '../../domain/runs.ts';
import { noteStatements } from '../outbox.ts';
import type { PgDb } from './db.ts';

const putRun = `WITH device AS (
    SELECT id, owner, last_upload_at FROM devices WHERE id = ? AND revoked_at IS NULL FOR SHARE
  ), inserted AS (
    INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, chunked, body, receipt)
    SELECT id, ?::text, owner, ?::text, ?::text, ?::bigint, ?::text, ?::bigint, ?::int::boolean, ?::bytea, ?::text FROM device
    ON CONFLICT (device_id, id) DO NOTHING RETURNING seq
  )
  SELECT (SELECT seq FROM inserted) AS seq, (SELECT last_upload_at FROM device) AS last_upload_at,
    EXISTS (SELECT 1 FROM device) AS active, (SELECT sha256 FROM runs WHERE device_id = ? AND id = ?) AS existing`;

export function pgPutRun(db: PgDb): Pick<RunsStore, 'putRun'> {
  return {
    async putRun(run, note): Promise<PutRunResult> {
      const chunked = run.body.byteLength > CHUNK_SIZE;
      const args = [...insertArgs(run), run.device, run.id];
      let row;
      if (chunked || note) {
        // A large run and its chunks are one transaction: none is seen without all its bytes; a
        // run.stored note commits with its run.
        row = await db.transaction(async (q) => {
          const [result] = await q(putRun, ...args);
          if (result?.seq == null) return result;
          for (const [n, data] of chunked ? chunksOf(run.body) : [])
            await q(runsSql.insertChunk, result.seq as number, n, data);
          for (const [s, p] of note ? noteStatements(note) : []) await q(s, ...p);
          return result;
        });
      } else {
        row = await db.sql.get(putRun, ...args);
      }
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
