/**
 * Retention by privacy level (docs/contract.md section 10): the sweeper's batches, what the next sweep
 * will remove, stored bytes per level (from the counts table, kept by triggers), and the lease
 * that lets one instance sweep at a time across instances sharing a store.
 */
import { PRIVACY_LEVELS, type PrivacyLevel } from '../domain/privacy.ts';
import { allAndOwn, counted, type Sql } from './sql.ts';
import type { RetentionStore } from './store.ts';

/**
 * A level's statements, written once: the level is a literal, one of the three fixed names, so that
 * both planners match it to that level's partial index (a bound parameter could be any level).
 */
function levelSql(level: PrivacyLevel) {
  const oldest = `SELECT seq, size FROM runs WHERE privacy = '${level}' AND uploaded_at < ? ORDER BY uploaded_at, seq LIMIT ?`;
  return {
    /**
     * The oldest `limit` runs of the level uploaded before an instant, through runs_retention_<level>;
     * their chunks go with them (ON DELETE CASCADE) and the counts triggers subtract them.
     */
    deleteExpired: `DELETE FROM runs WHERE seq IN (SELECT seq FROM (${oldest}) AS oldest) RETURNING size`,
    /** What a sweep would remove now, counted over an index range of at most `limit` entries. */
    due: `SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM (${oldest}) AS due`,
  };
}

export const retentionSql = {
  levels: Object.fromEntries(PRIVACY_LEVELS.map((level) => [level, levelSql(level)])) as Record<
    PrivacyLevel,
    ReturnType<typeof levelSql>
  >,
  // Everyone's and an owner's (sql.ts, counted).
  bytesByLevel:
    allAndOwn(`SELECT coalesce(sum(full_bytes), 0) AS full_bytes, coalesce(sum(redacted_bytes), 0) AS redacted_bytes,
    coalesce(sum(minimal_bytes), 0) AS minimal_bytes FROM counts`),
  runsByLevel:
    allAndOwn(`SELECT coalesce(sum(full_runs), 0) AS full_runs, coalesce(sum(redacted_runs), 0) AS redacted_runs,
    coalesce(sum(minimal_runs), 0) AS minimal_runs FROM counts`),
  // One upsert decides, as for sign-in turns: the row is written only when free, lapsed or already
  // ours, and RETURNING says whether it was. On PostgreSQL the upsert locks the row, so of two
  // instances exactly one sees it free.
  takeLease: `INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
    WHERE leases.until <= ? OR leases.holder = excluded.holder
    RETURNING holder`,
  releaseLease: 'DELETE FROM leases WHERE name = ? AND holder = ?',
} as const;

export function retentionStore(db: Sql): RetentionStore {
  return {
    async deleteExpiredRuns(privacy, before, limit) {
      const rows = await db.all(retentionSql.levels[privacy].deleteExpired, before, limit);
      return { runs: rows.length, bytes: rows.reduce((sum, r) => sum + Number(r.size), 0) };
    },
    async dueForDeletion(privacy, before, limit) {
      const r = await db.get(retentionSql.levels[privacy].due, before, limit);
      return { runs: Number(r?.n ?? 0), bytes: Number(r?.bytes ?? 0) };
    },
    async storedBytesByLevel(viewer) {
      const r = await db.get(...counted(viewer, retentionSql.bytesByLevel));
      return {
        full: Number(r?.full_bytes ?? 0),
        redacted: Number(r?.redacted_bytes ?? 0),
        minimal: Number(r?.minimal_bytes ?? 0),
      } satisfies Record<PrivacyLevel, number>;
    },
    async storedRunsByLevel(viewer) {
      const r = await db.get(...counted(viewer, retentionSql.runsByLevel));
      return {
        full: Number(r?.full_runs ?? 0),
        redacted: Number(r?.redacted_runs ?? 0),
        minimal: Number(r?.minimal_runs ?? 0),
      } satisfies Record<PrivacyLevel, number>;
    },
    async takeLease(name, holder, now, until) {
      return (await db.critical(retentionSql.takeLease, name, holder, until, now)) === 1;
    },
    async releaseLease(name, holder) {
      await db.critical(retentionSql.releaseLease, name, holder);
    },
  };
}
