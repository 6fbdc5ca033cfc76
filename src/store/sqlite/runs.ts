/**
 * Runs on SQLite: stored byte for byte, large ones in 256 KiB chunks read back one at a time,
 * listed newest first with keyset pages, and counted for the dashboard.
 */
import { chartStart, page, cursor, perDay, summaryFrom } from '../rows.ts';
import type { Page, PageRequest, PutRunResult, Run, RunSummary, StoredRun, Viewer } from '../store.ts';
import type { Db } from './db.ts';
import { listQueries, runSummaryFromArray, seqOf } from './list_queries.ts';

/** Runs larger than this are stored in chunks of this size and streamed when viewed. */
export const CHUNK_SIZE = 256 * 1024;

/** At most this many uploads share one transaction; the rest go in the next. */
const MAX_BATCH = 256;

export class SqliteRuns {
  #db: Db;
  /** Uploads waiting for the next group commit. */
  #queue: Array<{ run: Run & { sha256: string }; resolve: (r: PutRunResult) => void; reject: (e: unknown) => void }> =
    [];

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Uploads arriving together are written in one transaction (group commit): each in a savepoint
   * of its own, so one that fails affects no other, and every promise settles only after COMMIT,
   * so an acknowledged upload is a committed one. The batch is written once the current turn of the
   * event loop has delivered what it read (setImmediate), so a lone upload waits for nothing.
   */
  putRun(run: Run & { sha256: string }): Promise<PutRunResult> {
    return new Promise((resolve, reject) => {
      if (this.#queue.push({ run, resolve, reject }) === 1) setImmediate(() => this.#writeQueued());
    });
  }

  #writeQueued(): void {
    const batch = this.#queue.splice(0, MAX_BATCH);
    if (this.#queue.length > 0) setImmediate(() => this.#writeQueued());
    const outcomes: Array<{ ok: true; result: PutRunResult } | { ok: false; error: unknown }> = [];
    try {
      this.#db.transaction(() => {
        for (const { run } of batch) {
          try {
            outcomes.push({ ok: true, result: this.#db.savepoint(() => this.#put(run)) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
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

  #put(run: Run & { sha256: string }): PutRunResult {
    // Checked inside the transaction, so a revoke that lands first refuses this upload.
    const device = this.#db.get('SELECT owner FROM devices WHERE id = ? AND revoked_at IS NULL', run.device);
    if (!device) return 'device-unknown';
    const chunked = run.body.byteLength > CHUNK_SIZE;
    const inserted = this.#db.run(
      `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, chunked)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (device_id, id) DO NOTHING`,
      run.device,
      run.id,
      device.owner as string,
      run.contentType,
      run.privacy,
      run.size,
      run.sha256,
      run.uploadedAt,
      chunked ? new Uint8Array(0) : run.body,
      chunked ? 1 : 0,
    );
    if (inserted === 1) {
      if (chunked) this.#storeChunks(run.device, run.id, run.body);
      this.#db.run(
        'UPDATE devices SET last_seen_at = ?, last_upload_at = ? WHERE id = ?',
        run.uploadedAt,
        run.uploadedAt,
        run.device,
      );
      return 'created';
    }
    const existing = this.#db.get('SELECT sha256 FROM runs WHERE device_id = ? AND id = ?', run.device, run.id);
    return existing?.sha256 === run.sha256 ? 'identical' : 'conflict';
  }

  async runVisibleTo(viewer: Viewer, device: string, id: string): Promise<StoredRun | undefined> {
    const row = this.#db.get(
      `SELECT seq, device_id, id, content_type, privacy, size, uploaded_at, chunked FROM runs
       WHERE device_id = ? AND id = ? AND (? OR owner = ?)`,
      device,
      id,
      viewer.admin ? 1 : 0,
      viewer.subject,
    );
    if (!row) return undefined;
    const seq = row.seq as number;
    const read = row.chunked ? () => this.#chunks(seq) : () => this.#inline(seq);
    return { ...summaryFrom(row), read };
  }

  #storeChunks(device: string, id: string, body: Uint8Array) {
    const seq = this.#db.get('SELECT seq FROM runs WHERE device_id = ? AND id = ?', device, id)?.seq as number;
    for (let n = 0, at = 0; at < body.byteLength; n++, at += CHUNK_SIZE) {
      this.#db.run(
        'INSERT INTO run_chunks (run_seq, n, data) VALUES (?, ?, ?)',
        seq,
        n,
        body.subarray(at, at + CHUNK_SIZE),
      );
    }
  }

  async *#inline(seq: number): AsyncGenerator<Uint8Array> {
    const body = this.#db.get('SELECT body FROM runs WHERE seq = ?', seq)?.body as Uint8Array | undefined;
    if (body) yield body;
  }

  /** One chunk per step: other requests run between them, and only one chunk is in memory. */
  async *#chunks(seq: number): AsyncGenerator<Uint8Array> {
    for (let n = 0; ; n++) {
      const data = this.#db.get('SELECT data FROM run_chunks WHERE run_seq = ? AND n = ?', seq, n)?.data as
        Uint8Array | undefined;
      if (!data) return;
      yield data;
    }
  }

  async runsVisibleTo(viewer: Viewer, req: PageRequest): Promise<Page<RunSummary>> {
    const rows = viewer.admin
      ? this.#db.allArrays(listQueries.allRuns, cursor(req.before), req.limit + 1)
      : this.#db.allArrays(listQueries.ownRuns, viewer.subject, cursor(req.before), req.limit + 1);
    return page(rows, req.limit, runSummaryFromArray, seqOf);
  }

  async deleteRun(viewer: Viewer, device: string, id: string) {
    return (
      this.#db.run(
        'DELETE FROM runs WHERE device_id = ? AND id = ? AND (? OR owner = ?)',
        device,
        id,
        viewer.admin ? 1 : 0,
        viewer.subject,
      ) === 1
    );
  }

  async countsVisibleTo(viewer: Viewer) {
    const all = viewer.admin ? 1 : 0;
    const devices = this.#db.get(
      'SELECT count(*) AS n, count(*) FILTER (WHERE revoked_at IS NULL) AS active FROM devices WHERE (? OR owner = ?)',
      all,
      viewer.subject,
    );
    const runs = this.#db.get('SELECT count(*) AS n FROM runs WHERE (? OR owner = ?)', all, viewer.subject);
    return { devices: devices?.n as number, activeDevices: devices?.active as number, runs: runs?.n as number };
  }

  async uploadsPerDay(viewer: Viewer, days: number, now: number) {
    const since = chartStart(days, now);
    const rows = viewer.admin
      ? this.#db.all(
          'SELECT uploaded_at / 86400000 AS day, count(*) AS n FROM runs WHERE uploaded_at >= ? GROUP BY day',
          since,
        )
      : this.#db.all(
          'SELECT uploaded_at / 86400000 AS day, count(*) AS n FROM runs WHERE owner = ? AND uploaded_at >= ? GROUP BY day',
          viewer.subject,
          since,
        );
    return perDay(rows, days, now);
  }
}
