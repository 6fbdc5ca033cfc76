/**
 * Actions on one device, each checked, scoped and logged (with the actor and its client, so the
 * audit trail has both). The console, the JSON API and the sweepers call these; a bulk action
 * (bulk.ts) is exactly its items done alone.
 */
import { DEVICE_ID } from '../domain/ids.ts';
import { DEVICE_NAME } from '../domain/names.ts';
import type { LabelledDevice } from '../domain/devices.ts';
import type { Actor } from '../domain/accounts.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import { cancelRevokedDeviceRequests } from './collections.ts';

/** 'unknown' covers what does not exist and what the actor may not see: scoping reveals nothing. */
export type RevokeOutcome = 'revoked' | 'already-revoked' | 'unknown';
export type DeleteDeviceOutcome = 'deleted' | 'not-revoked' | 'unknown';
export type RenameOutcome = LabelledDevice | 'bad-name' | 'unknown';

export async function revokeDevice(
  deps: ActionDeps<'deviceVisibleTo' | 'revokeDevice' | 'cancelDeviceRequests' | 'enqueue'>,
  actor: Actor,
  id: string,
): Promise<RevokeOutcome> {
  if (!DEVICE_ID.test(id) || !(await deps.store.deviceVisibleTo(actor, id))) return 'unknown';
  // Revoking an already revoked device changes nothing and is not an error: the outcome is the same.
  const now = deps.clock.now();
  const fields = revokedFields(actor, id);
  if (!(await deps.store.revokeDevice(actor, id, now, note(EVENTS.deviceRevoked, fields, now))))
    return 'already-revoked';
  await deps.logger.emit(EVENTS.deviceRevoked, fields);
  // Its open requests are cancelled (docs/contract.md section 15).
  await cancelRevokedDeviceRequests(deps, id);
  return 'revoked';
}

/**
 * Revokes up to `limit` unrevoked devices not seen for `staleAfterMs` (PADDOCK_REVOKE_STALE_AFTER),
 * in one statement, so two instances never revoke the same device twice; the ids revoked. The
 * sweeper's action, as the system actor: logged as any revocation, with the reason.
 */
export async function revokeStaleDevices(
  deps: ActionDeps<'revokeStale' | 'cancelDeviceRequests' | 'enqueue'>,
  actor: Actor,
  input: { staleAfterMs: number; limit: number },
): Promise<string[]> {
  const now = deps.clock.now();
  const ids = await deps.store.revokeStale(now - input.staleAfterMs, now, input.limit, (device) =>
    note(EVENTS.deviceRevoked, revokedFields(actor, device, 'stale'), now),
  );
  for (const device of ids) {
    await deps.logger.emit(EVENTS.deviceRevoked, revokedFields(actor, device, 'stale'));
    await cancelRevokedDeviceRequests(deps, device);
  }
  return ids;
}

/**
 * Marks the devices not seen for `staleAfterMs` (PADDOCK_STALE_AFTER) that are not marked yet,
 * each with its device.stale message: sent once, until the device calls again. The sweeper's.
 */
export async function noteStaleDevices(
  deps: ActionDeps<'markStale'>,
  input: { staleAfterMs: number; limit: number },
): Promise<string[]> {
  const now = deps.clock.now();
  const fields = (d: { id: string; owner: string; lastSeenAt: number | null }) => ({
    account: d.owner,
    device: d.id,
    last_seen: d.lastSeenAt === null ? 'never' : new Date(d.lastSeenAt).toISOString(),
  });
  const seen = new Map<string, ReturnType<typeof fields>>();
  const ids = await deps.store.markStale(now - input.staleAfterMs, now, input.limit, (d) => {
    seen.set(d.id, fields(d));
    return note(EVENTS.deviceStale, fields(d), now);
  });
  for (const id of ids) {
    const f = seen.get(id);
    if (f) await deps.logger.emit(EVENTS.deviceStale, f);
  }
  return ids;
}

/** The fields of a revocation, by an account (with its client) or by the system (without). */
function revokedFields(actor: Actor, device: string, reason?: 'stale') {
  return { ...actedBy(actor), device, ...(reason === undefined ? {} : { reason }) };
}

export async function deleteDevice(
  deps: ActionDeps<'deleteDevice'>,
  actor: Actor,
  id: string,
): Promise<DeleteDeviceOutcome> {
  if (!DEVICE_ID.test(id)) return 'unknown';
  const fields = { ...actedBy(actor), device: id };
  const outcome = await deps.store.deleteDevice(actor, id, note(EVENTS.deviceDeleted, fields, deps.clock.now()));
  if (outcome === 'deleted') await deps.logger.emit(EVENTS.deviceDeleted, fields);
  return outcome;
}

/** The owner or an admin renames a device; the scope is checked before the name. The renamed device. */
export async function renameDevice(
  deps: ActionDeps<'deviceVisibleTo' | 'renameDevice'>,
  actor: Actor,
  input: { id: string; name: string },
): Promise<RenameOutcome> {
  const { id, name } = input;
  const device = DEVICE_ID.test(id) ? await deps.store.deviceVisibleTo(actor, id) : undefined;
  if (!device) return 'unknown';
  if (!DEVICE_NAME.test(name)) return 'bad-name';
  const fields = { ...actedBy(actor), device: id, name };
  if (!(await deps.store.renameDevice(actor, id, name, note(EVENTS.deviceRenamed, fields, deps.clock.now()))))
    return 'unknown';
  await deps.logger.emit(EVENTS.deviceRenamed, fields);
  return { ...device, name };
}
