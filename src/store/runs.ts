/**
 * Runs: stored byte for byte, large ones in 256 KiB chunks read back one at a time, listed newest
 * first with keyset pages, and counted for the dashboard. putRun is written per backend (SQLite
 * commits uploads in groups on its one connection, PostgreSQL stores each in one statement), in
 * each backend's runs.ts, with the statements below.
 */
import type { Receipt } from '../domain/receipt.ts';
import { chartStart, cursor, page, perDay, summaryFrom } from './rows.ts';
import { changed } from './devices.ts';
import type { Findings } from '../domain/redaction.ts';
import {
  allAndOwn,
  byOwners,
  counted,
  IN_SCOPE,
  merged,
  type Param,
  placeholders,
  rowsYielded,
  type RunCandidates,
  scope,
  type Sql,
} from './sql.ts';
import { ownersOf } from '../domain/owners.ts';
import { type ListOptions, ownersReach } from './owners_reach.ts';
import type { RunsStore } from './store.ts';
import type { Page, PageRequest } from '../domain/paging.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { Run, RunFilter, RunSummary, StoredRun } from '../domain/runs.ts';
import type { Viewer } from '../domain/accounts.ts';

/** Runs larger than this are stored in chunks of this size and streamed when viewed. */
export const CHUNK_SIZE = 256 * 1024;

/**
 * A device's last upload and last seen are written at most once a minute: every upload would
 * otherwise also rewrite (and, on PostgreSQL, lock) its device's row.
 */
export const DEVICE_TOUCH_MS = 60_000;

const summary = 'device_id, id, content_type, privacy, size, uploaded_at, flagged';

/** The list queries on request paths, named so that test/store/query_plans.test.ts checks their plans. */
export const runLists = {
  allRuns: `SELECT seq, ${summary} FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
  ownRuns: `SELECT seq, ${summary} FROM runs WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
  /** Each owner's arm of an account's list with its groups (sql.ts, byOwners). */
  ownersRuns: `SELECT seq, ${summary} FROM runs WHERE owner = ? AND seq < ?`,
  /** An account's list with its groups when they hold few runs (owners_reach.ts): read whole and sorted. */
  ownersRunsIn: (n: number) =>
    `SELECT seq, ${summary} FROM runs WHERE owner IN (${placeholders(n)}) AND seq < ? ORDER BY seq DESC LIMIT ?`,
};

export const runsSql = {
  existingSha: 'SELECT sha256 FROM runs WHERE device_id = ? AND id = ?',
  stored: 'SELECT 1 AS ok FROM runs WHERE device_id = ? AND id = ?',
  insertChunk: 'INSERT INTO run_chunks (run_seq, n, data) VALUES (?, ?, ?)',
  /** Sets last upload and last seen unless they were written less than DEVICE_TOUCH_MS ago. */
  touchDevice: `UPDATE devices SET last_upload_at = ?, last_seen_at = ?, stale_noted_at = NULL
    WHERE id = ? AND (last_upload_at IS NULL OR last_upload_at < ?)`,
  /**
   * One run in scope, with its device's name (by the devices' key) and the collection it answered
   * (collection_targets_run), for the run page (docs/contract.md section 22).
   */
  visible: `SELECT seq, ${summary}, chunked, findings, receipt,
    (SELECT d.name FROM devices d WHERE d.id = runs.device_id) AS device_name,
    (SELECT t.collection FROM collection_targets t WHERE t.device = runs.device_id AND t.run = runs.id
      AND t.run IS NOT NULL LIMIT 1) AS answered
    FROM runs WHERE device_id = ? AND id = ? AND ${IN_SCOPE}`,
  body: 'SELECT body FROM runs WHERE seq = ?',
  below: 'SELECT seq, device_id, id FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?',
  /** A page's devices' names, by the devices' key (the run list names its runs' devices). */
  deviceNames: (n: number) => `SELECT id, name FROM devices WHERE id IN (${placeholders(n)})`,
  /** Through runs_device_list: the device's newest run below this one's seq. */
  previous: `SELECT seq, ${summary} FROM runs WHERE device_id = ? AND ${IN_SCOPE}
    AND seq < (SELECT seq FROM runs WHERE device_id = ? AND id = ?) ORDER BY seq DESC LIMIT 1`,
  chunk: 'SELECT data FROM run_chunks WHERE run_seq = ? AND n = ?',
  delete: `DELETE FROM runs WHERE device_id = ? AND id = ? AND ${IN_SCOPE} RETURNING id`,
  levelCheck: 'UPDATE runs SET flagged = ?, findings = ? WHERE device_id = ? AND id = ? RETURNING id',
  /** The predicate is the partial index runs_unchecked's, written alike so both planners use it. */
  unchecked: `SELECT seq, device_id, id, privacy FROM runs WHERE findings IS NULL AND privacy <> 'full'
    AND seq > ? ORDER BY seq LIMIT ?`,
  // The counts table is kept by triggers as devices and runs come and go (see the migrations).
  // Everyone's and an owner's (sql.ts, counted).
  counts: allAndOwn(`SELECT coalesce(sum(devices), 0) AS devices, coalesce(sum(active_devices), 0) AS active,
    coalesce(sum(runs), 0) AS runs FROM counts`),
  storedBytes: 'SELECT coalesce(sum(bytes), 0) AS n FROM device_bytes WHERE device_id = ?',
  deviceInScope: `SELECT 1 AS ok FROM devices WHERE id = ? AND ${IN_SCOPE}`,
  /** The ends of a time range in seq (filteredRuns). */
  lastBefore: 'SELECT seq FROM runs WHERE uploaded_at < ? ORDER BY uploaded_at DESC, seq DESC LIMIT 1',
  firstFrom: 'SELECT seq FROM runs WHERE uploaded_at >= ? ORDER BY uploaded_at, seq LIMIT 1',
  allPerDay: 'SELECT uploaded_at / 86400000 AS day, count(*) AS n FROM runs WHERE uploaded_at >= ? GROUP BY day',
  ownPerDay:
    'SELECT uploaded_at / 86400000 AS day, count(*) AS n FROM runs WHERE owner = ? AND uploaded_at >= ? GROUP BY day',
  /** As ownPerDay, for an account with groups: each owner's range of runs_owner_uploaded_at. */
  ownersPerDay: (n: number) =>
    `SELECT uploaded_at / 86400000 AS day, count(*) AS n FROM runs WHERE owner IN (${placeholders(n)}) AND uploaded_at >= ? GROUP BY day`,
} as const;

/**
 * The arguments both backends' insert statements start with: the device, then the run's columns
 * (device_id, id, content_type, privacy, size, sha256, uploaded_at, chunked, body).
 */
export function insertArgs(run: Run & { sha256: string }): Param[] {
  const chunked = run.body.byteLength > CHUNK_SIZE;
  return [
    run.device,
    run.id,
    run.contentType,
    run.privacy,
    run.size,
    run.sha256,
    run.uploadedAt,
    chunked ? 1 : 0,
    chunked ? new Uint8Array(0) : run.body,
    run.receipt === undefined ? null : JSON.stringify(run.receipt),
  ];
}

/**
 * The device check of both backends' upload statements (docs/contract.md section 16): its
 * credential_version still the one the upload's lookup read; any, for a run with none.
 */
export const CREDENTIAL_HELD = 'credential_version = coalesce(?, credential_version)';

/** The parameters of the device check: the device, then CREDENTIAL_HELD's. */
export function deviceCheckArgs(run: Run): [string, number | null] {
  return [run.device, run.credentialVersion ?? null];
}

/** The arguments of runsSql.touchDevice for a run just stored. */
export function touchArgs(run: Run): [number, number, string, number] {
  return [run.uploadedAt, run.uploadedAt, run.device, run.uploadedAt - DEVICE_TOUCH_MS];
}

/** The parts of a body stored as chunks: none for a small run, whose bytes stay in its row. */
export function* chunksOf(body: Uint8Array): Generator<[number, Uint8Array]> {
  if (body.byteLength <= CHUNK_SIZE) return;
  for (let n = 0, at = 0; at < body.byteLength; n++, at += CHUNK_SIZE) yield [n, body.subarray(at, at + CHUNK_SIZE)];
}

export function runsStore(db: Sql, opts: ListOptions = {}): Omit<RunsStore, 'putRun'> {
  const fewRows = ownersReach(db, opts);
  async function* inline(seq: number): AsyncGenerator<Uint8Array> {
    const body = (await db.get(runsSql.body, seq))?.body as Uint8Array | undefined;
    if (body) yield body;
  }
  /** One chunk per step: other requests run between them, and only one chunk is in memory. */
  async function* chunks(seq: number): AsyncGenerator<Uint8Array> {
    for (let n = 0; ; n++) {
      const data = (await db.get(runsSql.chunk, seq, n))?.data as Uint8Array | undefined;
      if (!data) return;
      yield data;
    }
  }
  return {
    async runVisibleTo(viewer, device, id): Promise<StoredRun | undefined> {
      const row = await db.get(runsSql.visible, device, id, ...scope(viewer));
      if (!row) return undefined;
      const seq = row.seq as number;
      const read = row.chunked ? () => chunks(seq) : () => inline(seq);
      const findings = typeof row.findings === 'string' ? (JSON.parse(row.findings) as Findings) : null;
      const receipt = typeof row.receipt === 'string' ? (JSON.parse(row.receipt) as Receipt) : null;
      const deviceName = typeof row.device_name === 'string' ? row.device_name : undefined;
      const collection = typeof row.answered === 'string' ? row.answered : undefined;
      return { ...summaryFrom(row), findings, receipt, read, deviceName, collection };
    },
    async runsBelow(below, limit) {
      return (await db.all(runsSql.below, below, limit)).map((r) => ({
        seq: Number(r.seq),
        device: r.device_id as string,
        id: r.id as string,
      }));
    },
    async indexRunWords(seq, words) {
      await db.atomically(db.indexWords(seq, words));
    },
    async deviceNames(devices) {
      if (devices.length === 0) return new Map();
      const rows = await db.all(runsSql.deviceNames(devices.length), ...devices);
      return new Map(rows.map((r) => [r.id as string, r.name as string]));
    },
    async countRuns(viewer, filter, cap) {
      let scoped = viewer;
      if (filter.device !== undefined && !viewer.admin) {
        if (!(await db.get(runsSql.deviceInScope, filter.device, ...scope(viewer)))) return 0;
        scoped = { ...viewer, admin: true };
      }
      const owners = ownersOf(scoped);
      const merge = !scoped.admin && owners.length > 1 && !(await fewRows(owners, 'runs'));
      const { sql, params } = filteredRuns(scoped, { limit: cap }, filter, await rangeSeqs(db, filter), db, merge);
      return rowsYielded(db, sql, params);
    },
    async previousRun(viewer, device, id) {
      const row = await db.get(runsSql.previous, device, ...scope(viewer), device, id);
      return row ? summaryFrom(row) : undefined;
    },
    async runsVisibleTo(viewer, req, filter) {
      if (filter?.text !== undefined) return searchRuns(db, viewer, req, filter, filter.text.words);
      if (filter && Object.values(filter).some((v) => v !== undefined)) {
        let scoped = viewer;
        if (filter.device !== undefined && !viewer.admin) {
          // A device's runs share its owner, which never changes: once the device is in scope, its
          // runs are, and the walk takes the device's index rather than the owner's.
          if (!(await db.get(runsSql.deviceInScope, filter.device, ...scope(viewer)))) return { items: [] };
          scoped = { ...viewer, admin: true };
        }
        const owners = ownersOf(scoped);
        const merge = !scoped.admin && owners.length > 1 && !(await fewRows(owners, 'runs'));
        const { sql, params } = filteredRuns(scoped, req, filter, await rangeSeqs(db, filter), db, merge);
        return page(await db.arrays(sql, ...params), req.limit, runSummaryFromArray);
      }
      const owners = ownersOf(viewer);
      const rows = viewer.admin
        ? await db.arrays(runLists.allRuns, cursor(req.before), req.limit + 1)
        : owners.length === 1
          ? await db.arrays(runLists.ownRuns, viewer.subject, cursor(req.before), req.limit + 1)
          : (await fewRows(owners, 'runs'))
            ? await db.arrays(runLists.ownersRunsIn(owners.length), ...owners, cursor(req.before), req.limit + 1)
            : await db.arrays(
                ...merged(byOwners(db, owners, runLists.ownersRuns, [cursor(req.before)], req.limit + 1)),
              );
      return page(rows, req.limit, runSummaryFromArray);
    },
    async runStored(device, id) {
      return (await db.get(runsSql.stored, device, id)) !== undefined;
    },
    async storedBytes(device) {
      return Number((await db.get(runsSql.storedBytes, device))?.n);
    },
    async deleteRun(viewer, device, id, note) {
      return (await db.noted(changed(note), runsSql.delete, device, id, ...scope(viewer))).length === 1;
    },
    async uncheckedRuns(after, limit) {
      return (await db.all(runsSql.unchecked, after, limit)).map((r) => ({
        seq: Number(r.seq),
        device: r.device_id as string,
        id: r.id as string,
        privacy: r.privacy as PrivacyLevel,
      }));
    },
    async recordLevelCheck(device, id, findings, note) {
      const flagged = Object.values(findings).some((n) => n > 0);
      const args = [flagged ? 1 : 0, JSON.stringify(findings), device, id];
      return (await db.noted(changed(note), runsSql.levelCheck, ...args)).length === 1;
    },
    async countsVisibleTo(viewer) {
      const r = await db.get(...counted(viewer, runsSql.counts));
      return { devices: Number(r?.devices), activeDevices: Number(r?.active), runs: Number(r?.runs) };
    },
    async uploadsPerDay(viewer, days, now) {
      const since = chartStart(days, now);
      const owners = ownersOf(viewer);
      const rows = viewer.admin
        ? await db.all(runsSql.allPerDay, since)
        : owners.length === 1
          ? await db.all(runsSql.ownPerDay, viewer.subject, since)
          : await db.all(runsSql.ownersPerDay(owners.length), ...owners, since);
      return perDay(rows, days, now);
    },
  };
}

/**
 * The filtered run list (docs/contract.md section 9), newest first. A time range also bounds the walk by
 * seq (uploads are stamped as they arrive, so seq follows the time of upload): `seqs` are the
 * sequence numbers at the range's ends, looked up first through runs_uploaded_at (rangeSeqs), so
 * that both planners walk only the range, and a range with few runs never reads the rest.
 */
export function filteredRuns(
  viewer: Viewer,
  req: PageRequest,
  filter: RunFilter,
  seqs: { below: number; atLeast: number } = { below: cursor(req.before), atLeast: 0 },
  /** How an account with groups merges its owners' lists (sql.ts, byOwners). */
  db: Pick<Sql, 'limitEachArm'> = { limitEachArm: false },
  /** An account with groups: merge its owners' lists, or read them whole (owners_reach.ts). */
  mergeOwners = true,
): { sql: string; params: Param[] } {
  const where: string[] = ['seq < ?', 'seq >= ?'];
  const params: Param[] = [Math.min(cursor(req.before), seqs.below), seqs.atLeast];
  const add = (condition: string, ...values: Param[]) => (where.push(condition), params.push(...values));
  const owners = viewer.admin ? [] : ownersOf(viewer);
  if (owners.length === 1) add('owner = ?', viewer.subject);
  else if (owners.length > 1 && !mergeOwners) add(`owner IN (${placeholders(owners.length)})`, ...owners);
  if (filter.device !== undefined) add('device_id = ?', filter.device);
  if (filter.privacy !== undefined) add('privacy = ?', filter.privacy);
  if (filter.since !== undefined) add('uploaded_at >= ?', filter.since);
  if (filter.until !== undefined) add('uploaded_at < ?', filter.until);
  // A literal, not a parameter: the planners then take the partial index of flagged runs.
  if (filter.flagged !== undefined) add(filter.flagged ? 'flagged = 1' : 'flagged = 0');
  // An account with groups: each owner's runs from its index, merged.
  if (owners.length > 1 && mergeOwners)
    return byOwners(
      db,
      owners,
      `SELECT seq, ${summary} FROM runs WHERE owner = ? AND ${where.join(' AND ')}`,
      params,
      req.limit + 1,
    );
  params.push(req.limit + 1);
  return { sql: `SELECT seq, ${summary} FROM runs WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`, params };
}

/** A search page reads at most this many candidates from the index (or, walking, runs): docs/decisions.md. */
export const SEARCH_CANDIDATES = 10_000;

const summaryOfR = summary
  .split(', ')
  .map((c) => `r.${c}`)
  .join(', ');

/**
 * The search across runs (docs/contract.md section 21): the candidates from the backend's index
 * (Sql.runCandidates: the runs holding every word, newest first, at most SEARCH_CANDIDATES below
 * the cursor), each joined to its run by seq for the scope and the other filters. A page that the
 * cap cut short still names the next: its cursor is the least seq the candidates reached, so the
 * reader goes on from there and no query reads more than the cap, whatever the store holds.
 */
async function searchRuns(
  db: Sql,
  viewer: Viewer,
  req: PageRequest,
  filter: RunFilter,
  words: readonly string[],
): Promise<Page<RunSummary>> {
  const seqs = await rangeSeqs(db, filter);
  const below = Math.min(cursor(req.before), seqs.below);
  const found = await db.runCandidates(words, below, seqs.atLeast, SEARCH_CANDIDATES);
  const { sql, params } = searchStatement(viewer, req.limit, filter, found);
  const result = page(await db.arrays(sql, ...params), req.limit, runSummaryFromArray);
  if (result.next !== undefined) return result;
  const reached = await db.get(reachedSql(found), ...found.examined.params);
  return Number(reached?.n) >= SEARCH_CANDIDATES && Number(reached?.least) > 1
    ? { items: result.items, next: String(reached?.least), cut: true }
    : result;
}

/** How far a search's candidates reached: how many runs it read, and the least seq among them. */
export function reachedSql(found: RunCandidates): string {
  return `SELECT count(*) AS n, min(seq) AS least FROM (${found.examined.sql}) AS e`;
}

/** A search page: the candidates joined to their runs by seq, for the scope and the list's other filters. */
export function searchStatement(
  viewer: Viewer,
  limit: number,
  filter: RunFilter,
  found: RunCandidates,
): { sql: string; params: Param[] } {
  const where: string[] = [];
  const params: Param[] = [...found.params];
  const add = (condition: string, ...values: Param[]) => (where.push(condition), params.push(...values));
  // Each condition is checked on the candidate's own row, written as an expression no index
  // answers: else a planner may read all of an owner's (or a device's, or a time range's) runs and
  // join the candidates to them, a cost that grows with what they hold. The time range already
  // bounds the candidates by seq (rangeSeqs).
  const owners = viewer.admin ? [] : ownersOf(viewer);
  if (owners.length > 0) add(`r.owner || '' IN (${placeholders(owners.length)})`, ...owners);
  if (filter.device !== undefined) add(`r.device_id || '' = ?`, filter.device);
  if (filter.privacy !== undefined) add(`r.privacy || '' = ?`, filter.privacy);
  if (filter.since !== undefined) add('r.uploaded_at + 0 >= ?', filter.since);
  if (filter.until !== undefined) add('r.uploaded_at + 0 < ?', filter.until);
  if (filter.flagged !== undefined) add(filter.flagged ? 'r.flagged + 0 = 1' : 'r.flagged + 0 = 0');
  params.push(limit + 1);
  const sql = `SELECT r.seq, ${summaryOfR} FROM (${found.sql}) AS c CROSS JOIN runs r
    WHERE r.seq = c.seq${where.map((w) => ` AND ${w}`).join('')} ORDER BY c.seq DESC LIMIT ?`;
  return { sql, params };
}

/** The seq bounds of a time range: below the newest run before `until`, from the oldest at or after `since`. */
async function rangeSeqs(db: Sql, filter: RunFilter): Promise<{ below: number; atLeast: number }> {
  const [last, first] = await Promise.all([
    filter.until === undefined ? undefined : db.get(runsSql.lastBefore, filter.until),
    filter.since === undefined ? undefined : db.get(runsSql.firstFrom, filter.since),
  ]);
  return {
    below: filter.until === undefined ? Number.MAX_SAFE_INTEGER : last ? Number(last.seq) + 1 : 0,
    atLeast: filter.since === undefined ? 0 : first ? Number(first.seq) : Number.MAX_SAFE_INTEGER,
  };
}

function runSummaryFromArray(r: unknown[]): RunSummary {
  return {
    device: r[1] as string,
    id: r[2] as string,
    contentType: r[3] as string,
    privacy: r[4] as PrivacyLevel,
    size: r[5] as number,
    uploadedAt: r[6] as number,
    flagged: Number(r[7]) === 1,
  };
}
