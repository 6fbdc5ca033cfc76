/**
 * Collection requests (docs/contract.md section 15): an operator's ask (create, cancel), and a
 * device's answers (take its requests, fulfil one with an upload, decline one), each checked, scoped
 * and announced as the catalogue's events. Every door calls these: the console, the JSON API, the
 * control API and the sweeper.
 */
import type { Actor } from '../domain/accounts.ts';
import {
  type Collection,
  COLLECTION_ID,
  COLLECTION_REASON,
  type CollectionScope,
  DECLINE_REASON,
  isDeclineStderr,
  type DeviceRequest,
  EXPIRES_IN,
  MAX_NAMED_DEVICES,
  MAX_TARGETS,
  newCollectionId,
  REQUEST_ID,
} from '../domain/collections.ts';
import type { Device } from '../domain/devices.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { isPrivacyLevel, type PrivacyLevel } from '../domain/privacy.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import { actedBy, type ActionDeps } from './deps.ts';

export interface NewCollectionInput {
  privacy: string;
  reason: string;
  /** Seconds; EXPIRES_IN.default when not given. */
  expiresIn?: number | undefined;
  scope: CollectionScope;
}

/** Why a collection was not created: each a failure of http/failures.ts (FailureName). */
export type CreateFailure =
  | 'badCollectionPrivacy'
  | 'badCollectionReason'
  | 'badCollectionExpiresIn'
  | 'badCollectionDevices'
  | 'tooManyNamedDevices'
  | 'tooManyTargets';

export type CreateOutcome = { ok: true; collection: Collection } | { ok: false; failure: CreateFailure };

/** The input's failure, if any, before anything is read. */
export function checkNewCollection(input: NewCollectionInput): CreateFailure | undefined {
  if (!isPrivacyLevel(input.privacy)) return 'badCollectionPrivacy';
  if (!COLLECTION_REASON.test(input.reason)) return 'badCollectionReason';
  const expiresIn = input.expiresIn ?? EXPIRES_IN.default;
  if (!Number.isInteger(expiresIn) || expiresIn < EXPIRES_IN.min || expiresIn > EXPIRES_IN.max)
    return 'badCollectionExpiresIn';
  if ('devices' in input.scope) {
    if (input.scope.devices.length > MAX_NAMED_DEVICES) return 'tooManyNamedDevices';
    if (input.scope.devices.length === 0 || !input.scope.devices.every((d) => DEVICE_ID.test(d)))
      return 'badCollectionDevices';
  }
  return undefined;
}

type CreateStore = 'countCollectionReach' | 'createCollection' | 'enqueue';

export async function createCollection(
  deps: ActionDeps<CreateStore>,
  actor: Actor,
  input: NewCollectionInput,
): Promise<CreateOutcome> {
  const failure = checkNewCollection(input);
  if (failure) return { ok: false, failure };
  const now = deps.clock.now();
  const scope: CollectionScope =
    'devices' in input.scope ? { devices: [...new Set(input.scope.devices)] } : input.scope;
  const asked = {
    id: newCollectionId(),
    createdBy: actor.subject,
    createdAt: now,
    privacy: input.privacy as PrivacyLevel,
    reason: input.reason,
    expiresAt: now + (input.expiresIn ?? EXPIRES_IN.default) * 1000,
  };
  if ((await deps.store.countCollectionReach(actor, asked, scope)) > MAX_TARGETS) {
    return { ok: false, failure: 'tooManyTargets' };
  }
  const collection = await deps.store.createCollection(actor, asked, scope);
  const reached = Object.values(collection.counts).reduce((a, b) => a + b, 0);
  const fields = {
    ...actedBy(actor),
    collection: collection.id,
    privacy: collection.privacy,
    targets: reached,
    skipped: collection.counts.skipped,
  };
  await deps.store.enqueue(note(EVENTS.collectionCreated, fields, now));
  await deps.logger.emit(EVENTS.collectionCreated, fields);
  // Nothing reached, or every device skipped: closed as soon as created.
  if (collection.closedAt !== null) await announceClosed(deps, collection);
  return { ok: true, collection };
}

export async function cancelCollection(
  deps: ActionDeps<'cancelCollection' | 'enqueue'>,
  actor: Actor,
  id: string,
): Promise<'cancelled' | 'unknown'> {
  if (!COLLECTION_ID.test(id)) return 'unknown';
  const now = deps.clock.now();
  const out = await deps.store.cancelCollection(actor, id, now);
  if (!out) return 'unknown';
  const fields = { ...actedBy(actor), collection: id, cancelled: out.cancelled };
  await deps.store.enqueue(note(EVENTS.collectionCancelled, fields, now));
  await deps.logger.emit(EVENTS.collectionCancelled, fields);
  if (out.closed) await announceClosed(deps, out.closed);
  return 'cancelled';
}

/** collection.closed, with its targets by final state. */
export async function announceClosed(deps: ActionDeps<'enqueue'>, c: Collection): Promise<void> {
  const { fulfilled, declined, expired, cancelled, skipped } = c.counts;
  const fields = { account: c.createdBy, collection: c.id, fulfilled, declined, expired, cancelled, skipped };
  await deps.store.enqueue(note(EVENTS.collectionClosed, fields, deps.clock.now()));
  await deps.logger.emit(EVENTS.collectionClosed, fields);
}

/** What a device's answer to a request (an upload, or a decline) is refused as, or done. */
export type AnswerOutcome = 'done' | 'unknown' | 'not-open';

/** A run uploaded for `request` (as the upload read it: store.requestOf) was stored: the request is fulfilled by it. */
export async function fulfilRequest(
  deps: ActionDeps<'fulfilRequest' | 'enqueue'>,
  device: Pick<Device, 'id' | 'owner'>,
  request: Pick<DeviceRequest, 'id' | 'collection' | 'createdAt'>,
  run: string,
  onAnswer?: (createdAt: number) => void,
): Promise<AnswerOutcome> {
  const now = deps.clock.now();
  const answer = await deps.store.fulfilRequest(device.id, request, run, now);
  if (answer.outcome !== 'fulfilled') return answer.outcome === 'declined' ? 'not-open' : answer.outcome;
  onAnswer?.(answer.createdAt);
  const fields = { account: device.owner, device: device.id, collection: answer.collection, run };
  await deps.store.enqueue(note(EVENTS.requestFulfilled, fields, now));
  await deps.logger.emit(EVENTS.requestFulfilled, fields);
  if (answer.closed) await announceClosed(deps, answer.closed);
  return 'done';
}

export async function declineRequest(
  deps: ActionDeps<'declineRequest' | 'enqueue'>,
  device: Pick<Device, 'id' | 'owner'>,
  id: string,
  reason: string,
  onAnswer?: (createdAt: number) => void,
  stderr: string | null = null,
): Promise<AnswerOutcome | 'bad-reason' | 'bad-stderr'> {
  if (!DECLINE_REASON.test(reason)) return 'bad-reason';
  if (stderr !== null && !isDeclineStderr(stderr)) return 'bad-stderr';
  if (!REQUEST_ID.test(id)) return 'unknown';
  const now = deps.clock.now();
  // Kept with the target, not in the event: a page shows it, a log line or webhook need not carry 3 KiB.
  const answer = await deps.store.declineRequest(device.id, id, reason, now, stderr === '' ? null : stderr);
  if (answer.outcome !== 'declined') return answer.outcome === 'fulfilled' ? 'not-open' : answer.outcome;
  onAnswer?.(answer.createdAt);
  const fields = { account: device.owner, device: device.id, collection: answer.collection, reason };
  await deps.store.enqueue(note(EVENTS.requestDeclined, fields, now));
  await deps.logger.emit(EVENTS.requestDeclined, fields);
  if (answer.closed) await announceClosed(deps, answer.closed);
  return 'done';
}

/** A device was revoked: its open requests are cancelled, and the collections they close announced. */
export async function cancelRevokedDeviceRequests(
  deps: ActionDeps<'cancelDeviceRequests' | 'enqueue'>,
  device: string,
): Promise<void> {
  for (const c of await deps.store.cancelDeviceRequests(device, deps.clock.now())) await announceClosed(deps, c);
}

/** The sweeper's: collections past their expiry have their open targets expired, and are announced closed. */
export async function expireCollections(
  deps: ActionDeps<'expireCollections' | 'enqueue'>,
  limit: number,
): Promise<number> {
  const closed = await deps.store.expireCollections(deps.clock.now(), limit);
  for (const c of closed) await announceClosed(deps, c);
  return closed.length;
}
