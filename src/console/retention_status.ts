/** What the dashboard's retention section needs, read cheaply: counters, one settings row, bounded counts. */
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import {
  cutoffs,
  LAST_SWEEP_SETTING,
  parseSweepRecord,
  RETENTION_BATCH,
  RETENTION_BATCHES,
  type Retention,
} from '../domain/retention.ts';
import type { Store } from '../store/store.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { RetentionStatus } from '../views/retention.ts';

/** One sweep removes at most this many runs per level, so the count of what is due stops there. */
const BOUND = RETENTION_BATCH * RETENTION_BATCHES;

export async function retentionStatus(
  store: Store,
  retention: Retention,
  viewer: Viewer,
  now: number,
): Promise<RetentionStatus> {
  const unavailable = () => undefined;
  const stored = store.storedBytesByLevel(viewer).catch(unavailable);
  if (!viewer.admin) return { keptFor: retention, stored: await stored, admin: false };
  const [due, last] = await Promise.all([
    Promise.all(
      cutoffs(retention, now).map(async ([level, before]) => [level, await store.dueForDeletion(level, before, BOUND)]),
    ).catch(unavailable),
    store.getSetting(LAST_SWEEP_SETTING).then(parseSweepRecord, unavailable),
  ]);
  return {
    keptFor: Object.fromEntries(PRIVACY_LEVELS.map((l) => [l, retention[l]])),
    stored: await stored,
    due: due && Object.fromEntries(due),
    bound: BOUND,
    last,
    admin: true,
  };
}
