/**
 * The console's actions on one device or run, each checked, scoped and logged (with the acting
 * account and client, so the audit trail has both). A single action and every item of a bulk
 * action go through the same function, so a bulk action is exactly its items done alone.
 */
import type { Context } from 'hono';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { clientAddress } from '../http/client_address.ts';
import type { Viewer } from '../store/store.ts';
import type { Ctx } from './deps.ts';

/** 'unknown' covers what does not exist and what the account may not see: scoping reveals nothing. */
export type RevokeOutcome = 'revoked' | 'already-revoked' | 'unknown';
export type DeleteDeviceOutcome = 'deleted' | 'not-revoked' | 'unknown';

export async function revokeDevice(ctx: Ctx, c: Context, v: Viewer, id: string): Promise<RevokeOutcome> {
  if (!DEVICE_ID.test(id) || !(await ctx.store.deviceVisibleTo(v, id))) return 'unknown';
  // Revoking an already revoked device changes nothing and is not an error: the outcome is the same.
  if (!(await ctx.store.revokeDevice(v, id, ctx.clock.now()))) return 'already-revoked';
  ctx.logger.log('info', 'device.revoked', { account: v.subject, client: clientAddress(c), device: id });
  return 'revoked';
}

export async function deleteDevice(ctx: Ctx, c: Context, v: Viewer, id: string): Promise<DeleteDeviceOutcome> {
  if (!DEVICE_ID.test(id)) return 'unknown';
  const outcome = await ctx.store.deleteDevice(v, id);
  if (outcome === 'deleted')
    ctx.logger.log('info', 'device.deleted', { account: v.subject, client: clientAddress(c), device: id });
  return outcome;
}

export async function deleteRun(ctx: Ctx, c: Context, v: Viewer, device: string, id: string): Promise<boolean> {
  const deleted = DEVICE_ID.test(device) && RUN_ID.test(id) && (await ctx.store.deleteRun(v, device, id));
  if (deleted) ctx.logger.log('info', 'run.deleted', { account: v.subject, client: clientAddress(c), device, run: id });
  return deleted;
}
