/**
 * Retention by privacy level (docs/contract.md section 10), what the sweeper and the dashboard share: the
 * retention of each level, the bound of one sweep, and the last sweep's record in the settings
 * table (every instance on the store shows the same one).
 */
import { PRIVACY_LEVELS, type PrivacyLevel } from './privacy.ts';

/** How long runs of each level are kept; an absent level is kept forever. */
export type Retention = Partial<Record<PrivacyLevel, number | undefined>>;

/** The retention of each level as configured (PADDOCK_RETENTION_FULL, _REDACTED, _MINIMAL). */
export function retentionOf(config: {
  retentionFullMs: number | undefined;
  retentionRedactedMs: number | undefined;
  retentionMinimalMs: number | undefined;
}): Retention {
  return { full: config.retentionFullMs, redacted: config.retentionRedactedMs, minimal: config.retentionMinimalMs };
}

/** Runs per statement, and statements per level and sweep: one sweep removes at most their product per level. */
export const RETENTION_BATCH = 500;
export const RETENTION_BATCHES = 20;

/** The settings row holding the last sweep, as JSON. */
export const LAST_SWEEP_SETTING = 'retention.last_sweep';

export interface SweepRecord {
  at: number;
  /** ok: it finished; partial: a store error, or the lease lost, ended it early (what it did is counted). */
  result: 'ok' | 'partial';
  runs: Record<PrivacyLevel, number>;
  bytes: number;
}

/** The levels with a retention set, each with its cut-off: runs uploaded before it are expired. */
export function cutoffs(retention: Retention, now: number): Array<[PrivacyLevel, number]> {
  return PRIVACY_LEVELS.flatMap((level) => {
    const ms = retention[level];
    return ms === undefined ? [] : [[level, now - ms] as [PrivacyLevel, number]];
  });
}

/** The stored record, or undefined when there is none or it does not parse (a sweep then rewrites it). */
export function parseSweepRecord(text: string | undefined): SweepRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as SweepRecord;
    const counts = PRIVACY_LEVELS.map((l) => r.runs?.[l]);
    if (typeof r.at !== 'number' || typeof r.bytes !== 'number' || counts.some((n) => typeof n !== 'number'))
      return undefined;
    return { at: r.at, result: r.result === 'ok' ? 'ok' : 'partial', runs: r.runs, bytes: r.bytes };
  } catch {
    return undefined;
  }
}
