/**
 * Prunes the audit trail (docs/contract.md section 9): records older than PADDOCK_AUDIT_RETENTION,
 * oldest first, in bounded batches so one run never holds the store for long; what is left waits
 * for the next run. Each batch is one statement, so instances sharing a store never delete twice.
 */
import type { Clock } from '../clock.ts';
import type { Store } from '../store/store.ts';

export interface Batches {
  /** Rows per statement. */
  batch: number;
  /** Statements per run. */
  batches: number;
}

/** One run's pruning; how many records it removed. */
export async function pruneAudit(
  deps: { store: Pick<Store, 'pruneAudit'>; clock: Clock },
  retentionMs: number,
  { batch, batches }: Batches,
): Promise<number> {
  const before = deps.clock.now() - retentionMs;
  let total = 0;
  for (let i = 0; i < batches; i++) {
    const n = await deps.store.pruneAudit(before, batch);
    total += n;
    if (n < batch) break;
  }
  return total;
}
