/**
 * Bulk actions (docs/contract.md section 9): each item is acted on exactly as alone, one at a time in the
 * order given, so each is its own logged action; the counts say what happened to how many,
 * including those that changed nothing.
 */
import type { Actor } from '../domain/accounts.ts';
import type { ActionDeps } from './deps.ts';
import { deleteDevice, revokeDevice } from './devices.ts';
import { approveDevice, rejectDevice } from './approval.ts';
import { labelDevice } from './labels.ts';
import { deleteRun } from './runs.ts';

/** What a bulk action did, item by item. */
export interface BulkCounts {
  /** Acted on. */
  done: number;
  /** Already in the state asked for (a revoked device revoked again; a device approved or rejected that does not wait). */
  unchanged: number;
  /** Devices that must be revoked before they can be deleted. */
  notRevoked: number;
  /** Not found, or not visible to this account: changed nothing. */
  unknown: number;
  /** Devices that already carry 20 labels: the label was not added. */
  full: number;
}

const none = (): BulkCounts => ({ done: 0, unchanged: 0, notRevoked: 0, unknown: 0, full: 0 });

export async function bulkDevices(
  deps: ActionDeps<
    | 'deviceVisibleTo'
    | 'revokeDevice'
    | 'deleteDevice'
    | 'approveDevice'
    | 'rejectDevice'
    | 'cancelDeviceRequests'
    | 'enqueue'
  >,
  actor: Actor,
  input: { action: 'revoke' | 'delete' | 'approve' | 'reject'; ids: readonly string[] },
): Promise<BulkCounts> {
  const counts = none();
  for (const id of input.ids) {
    if (input.action === 'approve' || input.action === 'reject') {
      const outcome = await (input.action === 'approve' ? approveDevice : rejectDevice)(deps, actor, id);
      counts[outcome === 'done' ? 'done' : outcome === 'not-pending' ? 'unchanged' : 'unknown']++;
    } else if (input.action === 'revoke') {
      const outcome = await revokeDevice(deps, actor, id);
      counts[outcome === 'revoked' ? 'done' : outcome === 'already-revoked' ? 'unchanged' : 'unknown']++;
    } else {
      const outcome = await deleteDevice(deps, actor, id);
      counts[outcome === 'deleted' ? 'done' : outcome === 'not-revoked' ? 'notRevoked' : 'unknown']++;
    }
  }
  return counts;
}

/**
 * Sets one label (`label`) or removes one key (`unlabel`) on each device, each device's change on
 * its own as the device page's would be (one transaction, one event): a stop between two devices
 * leaves each either changed or not. The label was checked by the door.
 */
export async function bulkLabel(
  deps: ActionDeps<'deviceVisibleTo' | 'changeLabels'>,
  actor: Actor,
  input:
    | { action: 'label'; key: string; value: string; ids: readonly string[] }
    | { action: 'unlabel'; key: string; ids: readonly string[] },
): Promise<BulkCounts> {
  const counts = none();
  const change = input.action === 'label' ? { set: { [input.key]: input.value } } : { remove: [input.key] };
  for (const id of input.ids) {
    const outcome = await labelDevice(deps, actor, { id, change: { ok: true, value: change } });
    counts[
      outcome === 'unknown' ? 'unknown' : !outcome.ok ? 'full' : outcome.changed.length > 0 ? 'done' : 'unchanged'
    ]++;
  }
  return counts;
}

/** Deletes each run given as `{device}/{id}`; what the actor may not delete is counted and left. */
export async function bulkDeleteRuns(
  deps: ActionDeps<'deleteRun'>,
  actor: Actor,
  items: readonly string[],
): Promise<BulkCounts> {
  const counts = none();
  for (const item of items) {
    const slash = item.indexOf('/');
    const deleted =
      slash > 0 && (await deleteRun(deps, actor, { device: item.slice(0, slash), id: item.slice(slash + 1) }));
    counts[deleted ? 'done' : 'unknown']++;
  }
  return counts;
}
