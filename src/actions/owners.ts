/**
 * Handing devices over (docs/contract.md section 19), admin only: one device, each of a bulk
 * selection as if alone, or every device an account holds when it leaves. Each device handed over
 * is one device.owner_changed event with `from` and `to`; its runs go with it, in the same
 * transaction (store/owners.ts). The console, the API, the CLI and SCIM's deactivation call these.
 */
import { DEVICE_ID } from '../domain/ids.ts';
import { parseOwner } from '../domain/owners.ts';
import type { HandedOver } from '../domain/groups.ts';
import type { LabelledDevice } from '../domain/devices.ts';
import type { Actor } from '../domain/accounts.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import type { BulkCounts } from './bulk.ts';

/** 'unknown' covers what does not exist and what the actor may not see: scoping reveals nothing. */
export type HandOverOutcome =
  | { outcome: 'done' | 'unchanged'; device: LabelledDevice }
  | { outcome: 'bad-owner'; message: string }
  | { outcome: 'unknown' };

/** Why a device moved: an administrator's choice, or its owner left (disabled with hand_over_to). */
export type HandOverReason = 'left';

type Deps = ActionDeps<'handOverDevices'>;

/** The fields of a device handed over, as the log, the audit trail and the webhooks hear them. */
function fields(actor: Actor, moved: HandedOver, to: string, reason?: HandOverReason) {
  return { ...actedBy(actor), device: moved.device, from: moved.from, to, ...(reason ? { reason } : {}) };
}

/** Hands a batch over in one transaction, then logs each device moved; the devices moved. */
async function handOverBatch(
  deps: Deps,
  actor: Actor,
  ids: readonly string[],
  to: string,
  reason?: HandOverReason,
): Promise<HandedOver[]> {
  const now = deps.clock.now();
  const moved = await deps.store.handOverDevices(ids, to, (one) =>
    note(EVENTS.deviceOwnerChanged, fields(actor, one, to, reason), now),
  );
  for (const one of moved) await deps.logger.emit(EVENTS.deviceOwnerChanged, fields(actor, one, to, reason));
  return moved;
}

/**
 * Hands one device over to `owner` (a subject or `group:<name>`). The device is looked up first,
 * as a rename does: outside the scope (or for a non-admin) it is unknown whatever the owner.
 */
export async function handOverDevice(
  deps: ActionDeps<'deviceVisibleTo' | 'handOverDevices'>,
  actor: Actor,
  input: { id: string; owner: string },
): Promise<HandOverOutcome> {
  const device =
    actor.admin && DEVICE_ID.test(input.id) ? await deps.store.deviceVisibleTo(actor, input.id) : undefined;
  if (!device) return { outcome: 'unknown' };
  const owner = parseOwner(input.owner);
  if (!owner.ok) return { outcome: 'bad-owner', message: owner.message };
  const moved = await handOverBatch(deps, actor, [device.id], owner.owner);
  // Gone between the look and the move (deleted meanwhile) is unknown too; already its owner's is unchanged.
  if (moved.length === 0 && !(await deps.store.deviceVisibleTo(actor, device.id))) return { outcome: 'unknown' };
  return { outcome: moved.length === 0 ? 'unchanged' : 'done', device: { ...device, owner: owner.owner } };
}

/**
 * Each selected device handed over as if alone (the bulk form's `owner` action): the owner was
 * checked by the door, before any device. Counts as the other bulk actions count.
 */
export async function bulkHandOver(
  deps: ActionDeps<'deviceVisibleTo' | 'handOverDevices'>,
  actor: Actor,
  input: { owner: string; ids: readonly string[] },
): Promise<BulkCounts> {
  const counts: BulkCounts = { done: 0, unchanged: 0, notRevoked: 0, unknown: 0, full: 0 };
  for (const id of input.ids) {
    const r = await handOverDevice(deps, actor, { id, owner: input.owner });
    counts[r.outcome === 'done' ? 'done' : r.outcome === 'unchanged' ? 'unchanged' : 'unknown']++;
  }
  return counts;
}

/**
 * The pause after a batch that took `spentMs`: the store's multiple of it (handOverPace: on SQLite
 * twice as long, so a hand-over of thousands of devices takes at most a third of the process's one
 * thread and the uploads waiting meanwhile go first), and at least a turn of the event loop. A
 * 10,000-device hand-over still ends within seconds (bench/results.md).
 */
function pause(factor: number, spentMs: number): Promise<void> {
  const ms = Math.min(PAUSE_MAX_MS, factor * spentMs);
  return new Promise((resolve) => (ms >= 1 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}
const PAUSE_MAX_MS = 100;

/**
 * Every device `from` holds, handed over to `to` (a checked owner) batch after batch: a leaving
 * account's (docs/contract.md section 19, reason `left`). No device is ever deleted. How many moved.
 */
export async function handOverAll(
  deps: ActionDeps<'devicesOwnedBy' | 'handOverDevices' | 'handOverPace'>,
  actor: Actor,
  input: { from: string; to: string; reason?: HandOverReason },
): Promise<number> {
  if (input.from === input.to) return 0;
  let total = 0;
  for (;;) {
    const began = performance.now();
    const ids = await deps.store.devicesOwnedBy(input.from, deps.store.handOverPace.batch);
    if (ids.length === 0) return total;
    const moved = await handOverBatch(deps, actor, ids, input.to, input.reason);
    // Each batch takes devices still `from`'s, so one that moved none found them gone meanwhile.
    if (moved.length === 0) return total;
    total += moved.length;
    await pause(deps.store.handOverPace.pause, performance.now() - began);
  }
}
