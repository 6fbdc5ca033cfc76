/**
 * PUT /v1/runs/{id}: stores a run byte for byte at the privacy level the device chose.
 * Idempotent: the same id with identical bytes answers 200, with other bytes 409. Every way an
 * upload ends is an outcome (UploadOutcome), answered in one place (ANSWERS).
 *
 * The door (runUpload) reads as its stages, each a function of its own: the credential
 * (credential, credentialStillHolds), the headers (runHeaders), the level (levelRefused), the
 * body's kind (bodyHeaders), the request it answers (requestAnswered), the body (readRun), the
 * store (storeRun), and the request fulfilled (fulfil).
 */
import { fail, type FailureName } from '../http/failures.ts';
import type { Context, Handler } from 'hono';
import { sha256Hex } from '../crypto/random.ts';
import { BodyError, type BodyFailure, declaredLength, readBody } from '../http/body.ts';
import { plainText } from '../http/responses.ts';
import { RUN_ID } from '../domain/ids.ts';
import { type DeviceRequest, isOpen, REQUEST_ID } from '../domain/collections.ts';
import { fulfilRequest } from '../actions/collections.ts';
import { parseReceipt, type Receipt, RECEIPT_HEADER } from '../domain/receipt.ts';
import { isPrivacyLevel, type PrivacyLevel, withinCeiling } from '../domain/privacy.ts';
import type { Device } from '../domain/devices.ts';
import type { CredentialDevice } from '../domain/credentials.ts';
import { type PutRunResult, RUN_LIMIT } from '../domain/runs.ts';
import type { ControlDeps } from './deps.ts';
import { credentialCache } from './credential_cache.ts';
import { deviceOf } from './device_auth.ts';
import { lastSeen } from './last_seen.ts';
import {
  DEFAULT_UPLOAD_LIMITS,
  type Refusal,
  uploadBudget,
  type UploadLimits,
  type UploadTicket,
} from './upload_budget.ts';
import type { CredentialCache } from './credential_cache.ts';
import type { LastSeen } from './last_seen.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';

const CONTENT_TYPE = /^[\x20-\x7e]{1,255}$/;

/** Every way an upload ends: the store's outcomes (PutRunResult), and the refusals before it. */
export type UploadOutcome =
  | PutRunResult
  | 'unknown-credential'
  | 'bad-run-id'
  | 'bad-privacy-level'
  /** Above the device's privacy ceiling (docs/contract.md section 10): refused before a byte is read. */
  | 'refused'
  | 'bad-content-type'
  | 'bad-receipt'
  | 'receipt-with-full'
  /** Past its own share of the upload budget: that device's excess, not the instance's health. */
  | 'device-busy'
  /** Past the process's total: busy for everyone. */
  | 'busy'
  | 'over-quota'
  | 'too-large'
  | 'too-slow'
  | 'interrupted'
  /** X-Collection (docs/contract.md section 15): not a request id; not open for this device; above its level. */
  | 'bad-collection'
  | 'request-not-open'
  | 'above-request'
  /** X-Collection with the id of a run already stored at another level than the header's (issue 42). */
  | 'level-differs';

type Answer =
  | { status: 200 | 201; text: string }
  | {
      failure: FailureName;
      /** After the message, when the cause is worth showing. */
      detail?: (device: Device) => string;
      headers?: Record<string, string>;
    };

/** How a read of the run that failed ends; 'over-budget' depends on what refused the bytes (busyBy). */
const READ_FAILURES: Record<Exclude<BodyFailure, 'over-budget'>, UploadOutcome> = {
  'too-large': 'too-large',
  'too-slow': 'too-slow',
  // The device closed its side before the length it declared: answered at once, as a stall would be.
  'cut-short': 'too-slow',
  unreadable: 'interrupted',
};

/** The one table from an outcome to its answer (docs/contract.md section 6). */
const ANSWERS: Record<UploadOutcome, Answer> = {
  stored: { status: 201, text: 'stored' },
  'already-stored': { status: 200, text: 'already stored' },
  conflict: { failure: 'runConflict' },
  // Revoked (or gone) since the credential was looked up.
  'device-unknown': { failure: 'unknownCredential' },
  'unknown-credential': { failure: 'unknownCredential', headers: { 'WWW-Authenticate': 'Bearer' } },
  'bad-run-id': { failure: 'badRunId' },
  'bad-privacy-level': { failure: 'badPrivacyLevel' },
  refused: { failure: 'aboveCeiling', detail: (device) => `max_privacy=${device.maxPrivacy}` },
  'bad-content-type': { failure: 'badContentType' },
  'bad-receipt': { failure: 'badReceipt' },
  // A full upload removes nothing: a receipt with it is a mistake worth saying.
  'receipt-with-full': { failure: 'badReceipt', detail: () => 'a full upload removes nothing' },
  // 429 for one device's excess, 503 for the process (a load balancer reads 503 as an unhealthy
  // instance). The device client retries both after Retry-After: the memory is back within moments.
  'device-busy': { failure: 'deviceUploadsBusy', headers: { 'Retry-After': '1' } },
  busy: { failure: 'uploadsBusy', headers: { 'Retry-After': '1' } },
  'over-quota': { failure: 'quotaExceeded' },
  'too-large': { failure: 'runTooLarge' },
  'too-slow': { failure: 'uploadTooSlow' },
  interrupted: { failure: 'uploadInterrupted' },
  'bad-collection': { failure: 'badCollectionHeader' },
  'request-not-open': { failure: 'requestNotOpen' },
  'above-request': { failure: 'aboveRequest' },
  'level-differs': { failure: 'runLevelDiffers' },
};

/** Every answer but those of the store's own statement (stored, already stored, device unknown) and 401. */
const REFUSALS_JUDGED_AGAIN: ReadonlySet<UploadOutcome> = new Set(
  (Object.keys(ANSWERS) as UploadOutcome[]).filter(
    // (refused and over-quota asked before their events, in levelRefused() and readRun())
    (o) => !['stored', 'already-stored', 'device-unknown', 'unknown-credential', 'refused', 'over-quota'].includes(o),
  ),
);

function answer(c: Context, outcome: UploadOutcome, device: Device | undefined): Response {
  const a = ANSWERS[outcome];
  if ('status' in a) return plainText(c, a.status, a.text);
  for (const [name, value] of Object.entries(a.headers ?? {})) c.header(name, value);
  return fail(c, a.failure, device && a.detail?.(device));
}

/** What every upload shares, made once by runUpload. */
interface Door {
  deps: ControlDeps;
  limits: UploadLimits;
  /** A ticket of the upload budget for one device's upload, or 'device' when it has too many. */
  begin: (device: string) => UploadTicket | 'device';
  credentials: CredentialCache;
  seen: LastSeen;
}

/** One upload past its headers: who sends it, and what it says it is. */
interface Upload {
  c: Context;
  found: CredentialDevice;
  /** The credential's hash, to ask the store again whether it still holds. */
  hash: string;
  id: string;
  level: PrivacyLevel;
  contentType: string;
  receipt: Receipt | undefined;
}

/** The request an upload answers: `open` to fulfil; nothing for no X-Collection, or the retry of the upload that fulfilled it. */
type Asked = { open?: DeviceRequest };

export function runUpload(deps: ControlDeps): Handler {
  const limits = deps.uploadLimits ?? DEFAULT_UPLOAD_LIMITS;
  const door: Door = {
    deps,
    limits,
    begin: uploadBudget(limits),
    credentials: credentialCache(deps.store),
    seen: lastSeen(deps.store, deps.clock, deps.logger),
  };
  return async function runUploadHandler(c) {
    const found = await credential(door, c);
    if (!found) return answer(c, 'unknown-credential', undefined);
    const { device, hash } = found;
    let outcome = await upload(door, c, device, hash);
    // A refusal was judged on a lookup up to a minute old. Asked again of the store, so that it
    // carries an admin's ask to rotate at once, and a credential replaced meanwhile gets its 401
    // (docs/contract.md section 16); stored uploads were checked by their own statement.
    if (REFUSALS_JUDGED_AGAIN.has(outcome) && !(await credentialStillHolds(door, c, hash)))
      outcome = 'unknown-credential';
    // A stored run wrote last seen in its own statement; every other answer to a known device touches it.
    if (outcome === 'stored') door.seen.written(device.id);
    else if (outcome !== 'device-unknown' && outcome !== 'unknown-credential') door.seen.touch(device.id);
    return answer(c, outcome, device);
  };
}

/** The stages of one upload from a known credential, in order: each refusal ends it. */
async function upload(door: Door, c: Context, found: CredentialDevice, hash: string): Promise<UploadOutcome> {
  const named = runHeaders(c);
  if (typeof named === 'string') return named;
  const refused = await levelRefused(door, c, found, hash, named);
  if (refused) return refused;
  const kind = bodyHeaders(c, named.level);
  if (typeof kind === 'string') return kind;
  const u: Upload = { c, found, hash, ...named, ...kind };
  // An upload for a collection's request (docs/contract.md section 15) is checked before a byte is read.
  const asked = await requestAnswered(door, u, c.req.header('x-collection'));
  if (typeof asked === 'string') return asked;
  // Bytes are counted as they are read, so a body without a declared length costs what it sends.
  const ticket = door.begin(found.id);
  if (ticket === 'device') return 'device-busy';
  try {
    const body = await readRun(door, u, ticket);
    if (typeof body === 'string') return body;
    const outcome = await storeRun(door, u, body);
    // Revoked (or gone) since it was remembered: the next upload asks the store again.
    if (outcome === 'device-unknown') door.credentials.forget(hash);
    await fulfil(door, u, asked, outcome);
    return outcome;
  } finally {
    // However the read ends, the ticket goes back: a stalled upload frees its device's slot as
    // soon as it is cut off.
    ticket.release();
  }
}

/**
 * The credential stage: the device of the bearer credential (control/device_auth.ts judges it:
 * revoked, replaced, reused, due to rotate, pending). The one place an upload authenticates: a new
 * judgement of the credential belongs in deviceOf, which every device route shares.
 */
function credential(door: Door, c: Context): Promise<{ device: CredentialDevice; hash: string } | undefined> {
  return deviceOf(c, door.credentials);
}

/** Whether the credential still holds, asked of the store rather than the minute-old lookup (it also sets Paddock-Rotate). */
async function credentialStillHolds(door: Door, c: Context, hash: string): Promise<boolean> {
  door.credentials.forget(hash);
  return (await credential(door, c)) !== undefined;
}

/** The run's id (path) and its privacy level (X-Privacy-Level). */
function runHeaders(c: Context): { id: string; level: PrivacyLevel } | 'bad-run-id' | 'bad-privacy-level' {
  const id = c.req.param('id') ?? '';
  if (!RUN_ID.test(id)) return 'bad-run-id';
  const level = c.req.header('x-privacy-level') ?? '';
  if (!isPrivacyLevel(level)) return 'bad-privacy-level';
  return { id, level };
}

/**
 * The level stage: above the device's privacy ceiling, refused before a byte of the body is read,
 * so nothing above it is ever stored; the refusal is an event (audit, webhooks).
 */
async function levelRefused(
  door: Door,
  c: Context,
  found: CredentialDevice,
  hash: string,
  run: { id: string; level: PrivacyLevel },
): Promise<'refused' | 'unknown-credential' | undefined> {
  if (withinCeiling(run.level, found.maxPrivacy)) return undefined;
  // An event only for a credential that holds now.
  if (!(await credentialStillHolds(door, c, hash))) return 'unknown-credential';
  const fields = {
    account: found.owner,
    device: found.id,
    run: run.id,
    // Not `level`: every record's own field of that name is its log level.
    privacy: run.level,
    max_privacy: found.maxPrivacy,
  };
  // Nothing is stored: its webhook message is a write of its own, before the answer.
  await door.deps.store.enqueue(note(EVENTS.runRefusedPrivacy, fields, door.deps.clock.now()));
  await door.deps.logger.emit(EVENTS.runRefusedPrivacy, fields);
  return 'refused';
}

/** The body's kind: its Content-Type, and the receipt of what redaction removed (none with a full run). */
function bodyHeaders(
  c: Context,
  level: PrivacyLevel,
): { contentType: string; receipt: Receipt | undefined } | 'bad-content-type' | 'bad-receipt' | 'receipt-with-full' {
  const contentType = c.req.header('content-type') ?? 'application/octet-stream';
  if (!CONTENT_TYPE.test(contentType)) return 'bad-content-type';
  const header = c.req.header(RECEIPT_HEADER);
  if (header === undefined) return { contentType, receipt: undefined };
  if (level === 'full') return 'receipt-with-full';
  const receipt = parseReceipt(header);
  return receipt ? { contentType, receipt } : 'bad-receipt';
}

/**
 * The request stage, before a byte is read: the request an upload with X-Collection answers, read
 * once (with the level of a run already stored under this id). `open` when it is open for this
 * device at a level this upload keeps to; nothing to fulfil for the retry of the upload that
 * fulfilled it (putRun then says whether the bytes are the same). A run already stored answers at
 * its own level, not the header's (issue 42): 403 above the request's, 409 when it differs from
 * the header, so a retry never fulfils a request with a more revealing run.
 */
async function requestAnswered(
  door: Door,
  u: Upload,
  header: string | undefined,
): Promise<Asked | 'bad-collection' | 'request-not-open' | 'above-request' | 'level-differs'> {
  if (header === undefined) return {};
  if (!REQUEST_ID.test(header)) return 'bad-collection';
  const asked = await door.deps.store.requestOf(u.found.id, header, u.id);
  if (!asked) return 'request-not-open';
  const retry = asked.state === 'fulfilled' && asked.run === u.id;
  if (!retry && (!isOpen(asked.state) || asked.request.expiresAt <= door.deps.clock.now())) return 'request-not-open';
  const levels = asked.stored === null ? [u.level] : [u.level, asked.stored];
  if (!levels.every((l) => withinCeiling(l, asked.request.privacy))) return 'above-request';
  if (asked.stored !== null && asked.stored !== u.level) return 'level-differs';
  return retry ? {} : { open: asked.request };
}

/**
 * The body stage: the quota (by a declared length before a byte is read, else by the bytes read),
 * and the body itself at the minimum rate, each byte taken from the upload budget's ticket.
 */
async function readRun(door: Door, u: Upload, ticket: UploadTicket): Promise<Uint8Array | UploadOutcome> {
  const { deps, limits } = door;
  const device = u.found.id;
  // What refused the last bytes taken, for the answer to 'over-budget'.
  let refused: Refusal | undefined;
  const take = (bytes: number) => (refused = ticket.take(bytes)) === undefined;
  const declared = declaredLength(u.c.req.raw);
  if (declared !== undefined && (await quotaCheck(deps, device, u.id, declared)) === 'over-quota')
    return overQuota(door, u, declared);
  let body: Uint8Array;
  try {
    body = await readBody(u.c.req.raw, { limit: RUN_LIMIT, take, minRate: limits.minRate });
  } catch (err) {
    const code: BodyFailure = err instanceof BodyError ? err.code : 'unreadable';
    return code === 'over-budget' ? busyBy(refused) : READ_FAILURES[code];
  }
  if (declared === undefined && (await quotaCheck(deps, device, u.id, body.byteLength)) === 'over-quota')
    return overQuota(door, u, body.byteLength);
  return body;
}

/**
 * The store stage: the run and its run.stored webhook message in one statement (docs/contract.md
 * section 13); the log record and the level check once it is stored.
 */
async function storeRun(door: Door, u: Upload, body: Uint8Array): Promise<UploadOutcome> {
  const { deps, credentials } = door;
  const { found, id, level: privacy } = u;
  const device = found.id;
  const uploadedAt = deps.clock.now();
  const fields = { account: found.owner, device, run: id, privacy, size: body.byteLength };
  const run = {
    device,
    id,
    contentType: u.contentType,
    privacy,
    size: body.byteLength,
    uploadedAt,
    body,
    receipt: u.receipt,
    sha256: sha256Hex(body),
  };
  const stored = note(EVENTS.runStored, fields, uploadedAt);
  let outcome = await deps.store.putRun({ ...run, credentialVersion: found.version }, stored);
  // Revoked, or the credential changed since its lookup was remembered (docs/contract.md section
  // 16: rotated, first used, asked to rotate; here or on another instance): asked again, and
  // stored when it still works, as it would have been had the lookup not been remembered.
  if (outcome === 'device-unknown') {
    credentials.forget(u.hash);
    const again = await credential(door, u.c);
    if (again?.device.id !== device) return 'unknown-credential';
    outcome = await deps.store.putRun({ ...run, credentialVersion: again.device.version }, stored);
  }
  if (outcome === 'stored') {
    await deps.logger.emit(EVENTS.runStored, fields);
    deps.levelCheck?.stored({ device, id, privacy, body, owner: found.owner });
  }
  return outcome;
}

/**
 * The request fulfilled: the run is stored (now, or by an earlier try), so the request is fulfilled
 * by it, once, without reading it again. Should the request have closed meanwhile (expired,
 * cancelled), or a run of this id more revealing than it been stored meanwhile (the store's
 * statement refuses it), the run stays stored all the same.
 */
async function fulfil(door: Door, u: Upload, asked: Asked, outcome: UploadOutcome): Promise<void> {
  if (!asked.open || (outcome !== 'stored' && outcome !== 'already-stored')) return;
  const { deps } = door;
  await fulfilRequest(deps, u.found, asked.open, u.id, (createdAt) =>
    deps.metrics?.requestAnswered(deps.clock.now() - createdAt),
  );
}

/** A refusal by the quota (for a credential that still holds): logged, and its webhook message written on its own. */
async function overQuota(door: Door, u: Upload, size: number): Promise<UploadOutcome> {
  if (!(await credentialStillHolds(door, u.c, u.hash))) return 'unknown-credential';
  const fields = { account: u.found.owner, device: u.found.id, run: u.id, size };
  await door.deps.store.enqueue(note(EVENTS.runRefusedQuota, fields, door.deps.clock.now()));
  await door.deps.logger.emit(EVENTS.runRefusedQuota, fields);
  return 'over-quota';
}

/**
 * Whether storing `size` more bytes would take the device past PADDOCK_DEVICE_QUOTA (read from its
 * counter, kept by the store's triggers). A run already stored under this id is never refused
 * here: its retry stores nothing and must still answer 200 (or 409). Uploads of one device in
 * flight at once may each pass the check: the quota holds to within what they carry.
 */
async function quotaCheck(
  deps: ControlDeps,
  device: string,
  id: string,
  size: number,
): Promise<'within-quota' | 'over-quota'> {
  const quota = deps.deviceQuotaBytes;
  if (quota === undefined) return 'within-quota';
  if ((await deps.store.storedBytes(device)) + size <= quota) return 'within-quota';
  return (await deps.store.runStored(device, id)) ? 'within-quota' : 'over-quota';
}

/** Past its own device's share: that device's excess (429); else the process's total (503). */
function busyBy(refused: Refusal | undefined): UploadOutcome {
  return refused === 'device' ? 'device-busy' : 'busy';
}
