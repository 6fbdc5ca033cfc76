/**
 * Approval (docs/contract.md section 16): a device enrolled with a token minted `approval=required`
 * waits, pending, until an administrator approves it (it may then do what any device does) or
 * rejects it (it is revoked: its credential is refused at once, on every instance). Each is one
 * conditional statement, so an approval and a rejection racing leave one of them done, the other
 * `not-pending`. The doors keep both to administrators.
 */
import { DEVICE_ID } from '../domain/ids.ts';
import type { Actor } from '../domain/accounts.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';

/** 'unknown' covers what does not exist and what the actor may not see; 'not-pending' a device that does not wait. */
export type ApprovalOutcome = 'done' | 'not-pending' | 'unknown';

export async function approveDevice(
  deps: ActionDeps<'deviceVisibleTo' | 'approveDevice'>,
  actor: Actor,
  id: string,
): Promise<ApprovalOutcome> {
  if (!DEVICE_ID.test(id) || !(await deps.store.deviceVisibleTo(actor, id))) return 'unknown';
  const fields = { ...actedBy(actor), device: id };
  if (!(await deps.store.approveDevice(actor, id, note(EVENTS.deviceApproved, fields, deps.clock.now()))))
    return 'not-pending';
  await deps.logger.emit(EVENTS.deviceApproved, fields);
  return 'done';
}

export async function rejectDevice(
  deps: ActionDeps<'deviceVisibleTo' | 'rejectDevice'>,
  actor: Actor,
  id: string,
): Promise<ApprovalOutcome> {
  if (!DEVICE_ID.test(id) || !(await deps.store.deviceVisibleTo(actor, id))) return 'unknown';
  const now = deps.clock.now();
  const fields = { ...actedBy(actor), device: id };
  if (!(await deps.store.rejectDevice(actor, id, now, note(EVENTS.deviceRejected, fields, now)))) return 'not-pending';
  // A pending device has no open request to cancel: a collection skips it (store/collections.ts).
  await deps.logger.emit(EVENTS.deviceRejected, fields);
  return 'done';
}
