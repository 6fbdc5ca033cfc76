/**
 * The console's actions on one device or run, each checked, scoped and logged (with the acting
 * account and client, so the audit trail has both). A single action and every item of a bulk
 * action go through the same function, so a bulk action is exactly its items done alone.
 */
import type { Context } from 'hono';
import { randomToken, secretHash } from '../crypto/random.ts';
import { TOKEN_PUBLIC_ID, type EnrollToken } from '../domain/enroll_tokens.ts';
import { DEVICE_ID, RUN_ID, SUBJECT } from '../domain/ids.ts';
import { DEVICE_NAME } from '../domain/names.ts';
import { clientAddress } from '../http/client_address.ts';
import type { FailureName } from '../http/failures.ts';
import type { Device } from '../domain/devices.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { Ctx } from '../context/deps.ts';
import { readMintFields } from './enroll_token_fields.ts';
import { EVENTS } from '../events/catalogue.ts';

/** 'unknown' covers what does not exist and what the account may not see: scoping reveals nothing. */
export type RevokeOutcome = 'revoked' | 'already-revoked' | 'unknown';
export type DeleteDeviceOutcome = 'deleted' | 'not-revoked' | 'unknown';

export async function revokeDevice(ctx: Ctx, c: Context, v: Viewer, id: string): Promise<RevokeOutcome> {
  if (!DEVICE_ID.test(id) || !(await ctx.store.deviceVisibleTo(v, id))) return 'unknown';
  // Revoking an already revoked device changes nothing and is not an error: the outcome is the same.
  if (!(await ctx.store.revokeDevice(v, id, ctx.clock.now()))) return 'already-revoked';
  await ctx.logger.emit(EVENTS.deviceRevoked, { account: v.subject, client: clientAddress(c), device: id });
  return 'revoked';
}

export async function deleteDevice(ctx: Ctx, c: Context, v: Viewer, id: string): Promise<DeleteDeviceOutcome> {
  if (!DEVICE_ID.test(id)) return 'unknown';
  const outcome = await ctx.store.deleteDevice(v, id);
  if (outcome === 'deleted')
    await ctx.logger.emit(EVENTS.deviceDeleted, { account: v.subject, client: clientAddress(c), device: id });
  return outcome;
}

export async function deleteRun(ctx: Ctx, c: Context, v: Viewer, device: string, id: string): Promise<boolean> {
  const deleted = DEVICE_ID.test(device) && RUN_ID.test(id) && (await ctx.store.deleteRun(v, device, id));
  if (deleted)
    await ctx.logger.emit(EVENTS.runDeleted, { account: v.subject, client: clientAddress(c), device, run: id });
  return deleted;
}

/** The owner or an admin renames a device; the scope is checked before the name. The renamed device. */
export async function renameDevice(
  ctx: Ctx,
  c: Context,
  v: Viewer,
  id: string,
  name: string,
): Promise<Device | 'bad-name' | 'unknown'> {
  const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(v, id) : undefined;
  if (!device) return 'unknown';
  if (!DEVICE_NAME.test(name)) return 'bad-name';
  if (!(await ctx.store.renameDevice(v, id, name))) return 'unknown';
  await ctx.logger.emit(EVENTS.deviceRenamed, { account: v.subject, client: clientAddress(c), device: id, name });
  return { ...device, name };
}

export type MintOutcome = { ok: true; token: EnrollToken; link: string } | { ok: false; failure: FailureName };

/**
 * An admin mints an enrollment token from the fields of CONTRACT section 9 (as text: a form's, or
 * the API's JSON turned into text). The token is stored only as its hash and leaves only in the
 * link, which the caller shows once; neither goes into a log record.
 */
export async function mintEnrollToken(
  ctx: Ctx,
  c: Context,
  actor: string,
  fields: Map<string, string>,
): Promise<MintOutcome> {
  const owner = (fields.get('owner') ?? '').trim() || actor;
  if (!SUBJECT.test(owner)) return { ok: false, failure: 'badOwner' };
  const read = readMintFields(fields, ctx.config.enrollTokenTtlSeconds);
  if (!read.ok) return read;
  const { expiresInSeconds, uses, name, note, maxPrivacy } = read.fields;
  const token = randomToken(32);
  const now = ctx.clock.now();
  const record = await ctx.store.createEnrollToken({
    hash: secretHash(token),
    owner,
    createdBy: actor,
    createdAt: now,
    expiresAt: now + expiresInSeconds * 1000,
    uses,
    name,
    note,
    maxPrivacy,
  });
  await ctx.logger.emit(EVENTS.enrollTokenMinted, {
    account: actor,
    client: clientAddress(c),
    owner,
    token: record.publicId,
    uses,
    max_privacy: maxPrivacy,
  });
  return { ok: true, token: record, link: ctx.linkBuilder({ ...record, token }) };
}

/** An admin revokes an outstanding enrollment token by its public id; false when there is none. */
export async function revokeEnrollToken(ctx: Ctx, c: Context, actor: string, id: string): Promise<boolean> {
  if (!TOKEN_PUBLIC_ID.test(id) || !(await ctx.store.revokeEnrollToken(id, ctx.clock.now()))) return false;
  await ctx.logger.emit(EVENTS.enrollTokenRevoked, { account: actor, client: clientAddress(c), token: id });
  return true;
}
