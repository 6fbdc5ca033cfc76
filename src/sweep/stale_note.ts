/**
 * Notes the devices that became stale (not seen for PADDOCK_STALE_AFTER), once each until they call
 * again, so `device.stale` is sent once (docs/contract.md section 13). Bounded batches, each one
 * statement, as the other minute jobs.
 */
import { noteStaleDevices } from '../actions/devices.ts';
import type { ActionDeps } from '../actions/deps.ts';
import type { Batches } from './audit_prune.ts';

/** One run's notes; how many devices became stale. */
export async function noteStale(
  deps: Parameters<typeof noteStaleDevices>[0] & ActionDeps<never>,
  staleAfterMs: number,
  { batch, batches }: Batches,
): Promise<number> {
  let total = 0;
  for (let i = 0; i < batches; i++) {
    const ids = await noteStaleDevices(deps, { staleAfterMs, limit: batch });
    total += ids.length;
    if (ids.length < batch) break;
  }
  return total;
}
