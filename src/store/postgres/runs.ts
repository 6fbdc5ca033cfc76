/**
 * Runs on PostgreSQL, mirroring sqlite/runs.ts: byte for byte, large ones in 256 KiB chunks,
 * keyset pages, and the dashboard's counts. Concurrent uploads of one id settle in the database.
 */
import { chartStart, cursor, page, perDay, summaryFrom, type Row } from '../rows.ts';
import type { Page, PageRequest, PutRunResult, Run, RunSummary, StoredRun, Viewer } from '../store.ts';
import type { PgDb } from './db.ts';

/** Same chunking as SQLite: runs above 256 KiB are stored in chunks and streamed. */
const CHUNK_SIZE = 256 * 1024;

export class PgRuns {
  #db: PgDb;

  constructor(db: PgDb) {
    this.#db = db;
  }

  async putRun(run: Run & { sha256: string }): Promise<PutRunResult> {
    return this.#db.transaction(async (q) => {
      // The row lock orders this upload with a concurrent revoke (and with other uploads of the device, which also update it).
      const device = (
        await q('SELECT owner FROM devices WHERE id = $1 AND revoked_at IS NULL FOR NO KEY UPDATE', [run.device])
      ).rows[0] as Row | undefined;
      if (!device) return 'device-unknown';
      const chunked = run.body.byteLength > CHUNK_SIZE;
      const inserted = await q(
        `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, chunked, body)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (device_id, id) DO NOTHING RETURNING seq`,
        [
          run.device,
          run.id,
          device.owner,
          run.contentType,
          run.privacy,
          run.size,
          run.sha256,
          run.uploadedAt,
          chunked,
          chunked ? Buffer.alloc(0) : Buffer.from(run.body),
        ],
      );
      const seq = (inserted.rows[0] as Row | undefined)?.seq;
      if (seq !== undefined) {
        for (let n = 0, at = 0; chunked && at < run.body.byteLength; n++, at += CHUNK_SIZE) {
          await q('INSERT INTO run_chunks (run_seq, n, data) VALUES ($1, $2, $3)', [
            seq,
            n,
            Buffer.from(run.body.subarray(at, at + CHUNK_SIZE)),
          ]);
        }
        await q('UPDATE devices SET last_seen_at = $1, last_upload_at = $1 WHERE id = $2', [
          run.uploadedAt,
          run.device,
        ]);
        return 'created';
      }
      // Another upload of this id committed first (the unique index made this one wait for it).
      const existing = (await q('SELECT sha256 FROM runs WHERE device_id = $1 AND id = $2', [run.device, run.id]))
        .rows[0] as Row | undefined;
      return existing?.sha256 === run.sha256 ? 'identical' : 'conflict';
    });
  }

  async runVisibleTo(viewer: Viewer, device: string, id: string): Promise<StoredRun | undefined> {
    const row = await this.#db.row(
      'SELECT seq, device_id, id, content_type, privacy, size, uploaded_at, chunked FROM runs WHERE device_id = $1 AND id = $2 AND ($3 OR owner = $4)',
      [device, id, viewer.admin, viewer.subject],
    );
    if (!row) return undefined;
    const seq = row.seq as number;
    const read = row.chunked ? () => this.#chunks(seq) : () => this.#inline(seq);
    return { ...summaryFrom(row), read };
  }

  async *#inline(seq: number): AsyncGenerator<Uint8Array> {
    const row = await this.#db.row('SELECT body FROM runs WHERE seq = $1', [seq]);
    if (row) yield row.body as Uint8Array;
  }

  async *#chunks(seq: number): AsyncGenerator<Uint8Array> {
    for (let n = 0; ; n++) {
      const row = await this.#db.row('SELECT data FROM run_chunks WHERE run_seq = $1 AND n = $2', [seq, n]);
      if (!row) return;
      yield row.data as Uint8Array;
    }
  }

  async runsVisibleTo(viewer: Viewer, req: PageRequest): Promise<Page<RunSummary>> {
    const columns = 'seq, device_id, id, content_type, privacy, size, uploaded_at';
    const rows = viewer.admin
      ? await this.#db.rows(`SELECT ${columns} FROM runs WHERE seq < $1 ORDER BY seq DESC LIMIT $2`, [
          cursor(req.before),
          req.limit + 1,
        ])
      : await this.#db.rows(`SELECT ${columns} FROM runs WHERE owner = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`, [
          viewer.subject,
          cursor(req.before),
          req.limit + 1,
        ]);
    return page(rows, req.limit, summaryFrom);
  }

  async deleteRun(viewer: Viewer, device: string, id: string) {
    return (
      (await this.#db.count('DELETE FROM runs WHERE device_id = $1 AND id = $2 AND ($3 OR owner = $4)', [
        device,
        id,
        viewer.admin,
        viewer.subject,
      ])) === 1
    );
  }

  async countsVisibleTo(viewer: Viewer) {
    const d = await this.#db.row(
      'SELECT count(*)::int AS n, (count(*) FILTER (WHERE revoked_at IS NULL))::int AS active FROM devices WHERE ($1 OR owner = $2)',
      [viewer.admin, viewer.subject],
    );
    const r = await this.#db.row('SELECT count(*)::int AS n FROM runs WHERE ($1 OR owner = $2)', [
      viewer.admin,
      viewer.subject,
    ]);
    return { devices: d?.n as number, activeDevices: d?.active as number, runs: r?.n as number };
  }

  async uploadsPerDay(viewer: Viewer, days: number, now: number) {
    const since = chartStart(days, now);
    const rows = viewer.admin
      ? await this.#db.rows(
          'SELECT uploaded_at / 86400000 AS day, count(*)::int AS n FROM runs WHERE uploaded_at >= $1 GROUP BY day',
          [since],
        )
      : await this.#db.rows(
          'SELECT uploaded_at / 86400000 AS day, count(*)::int AS n FROM runs WHERE owner = $1 AND uploaded_at >= $2 GROUP BY day',
          [viewer.subject, since],
        );
    return perDay(rows, days, now);
  }
}
