/**
 * Revokes the devices not seen for PADDOCK_REVOKE_STALE_AFTER (docs/contract.md section 9), through
 * the same action as an account's revoke, as the system actor, so each revocation is logged (and
 * audited) as done by `system`. Bounded batches, each one statement, as the audit pruning.
 */
import { revokeStaleDevices } from '../actions/devices.ts';
import type { ActionDeps } from '../actions/deps.ts';
import { SYSTEM_ACTOR } from '../domain/accounts.ts';
import type { Batches } from './audit_prune.ts';

/** One run's revocations; how many devices it revoked. */
export async function revokeStale(
  deps: ActionDeps<'revokeStale' | 'cancelDeviceRequests' | 'enqueue'>,
  staleAfterMs: number,
  { batch, batches }: Batches,
): Promise<number> {
  let total = 0;
  for (let i = 0; i < batches; i++) {
    const ids = await revokeStaleDevices(deps, SYSTEM_ACTOR, { staleAfterMs, limit: batch });
    total += ids.length;
    if (ids.length < batch) break;
  }
  return total;
}
