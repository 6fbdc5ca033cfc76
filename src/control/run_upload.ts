/**
 * PUT /v1/runs/{id}: stores a run byte for byte at the privacy level the device chose.
 * Idempotent: the same id with identical bytes answers 200, with other bytes 409. Every way an
 * upload ends is an outcome (UploadOutcome), answered in one place (ANSWERS).
 */
import { fail, type FailureName } from '../http/failures.ts';
import type { Context, Handler } from 'hono';
import { sha256Hex } from '../crypto/random.ts';
import { BodyError, type BodyFailure, declaredLength, readBody } from '../http/body.ts';
import { plainText } from '../http/responses.ts';
import { RUN_ID } from '../domain/ids.ts';
import { isOpen, REQUEST_ID } from '../domain/collections.ts';
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
import { DEFAULT_UPLOAD_LIMITS, type Refusal, uploadBudget, type UploadTicket } from './upload_budget.ts';
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
  | 'above-request';

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
};

/** Every answer but those of the store's own statement (stored, already stored, device unknown) and 401. */
const REFUSALS_JUDGED_AGAIN: ReadonlySet<UploadOutcome> = new Set(
  (Object.keys(ANSWERS) as UploadOutcome[]).filter(
    // (refused and over-quota asked before their events, in authenticated())
    (o) => !['stored', 'already-stored', 'device-unknown', 'unknown-credential', 'refused', 'over-quota'].includes(o),
  ),
);

function answer(c: Context, outcome: UploadOutcome, device: Device | undefined): Response {
  const a = ANSWERS[outcome];
  if ('status' in a) return plainText(c, a.status, a.text);
  for (const [name, value] of Object.entries(a.headers ?? {})) c.header(name, value);
  return fail(c, a.failure, device && a.detail?.(device));
}

export function runUpload(deps: ControlDeps): Handler {
  const limits = deps.uploadLimits ?? DEFAULT_UPLOAD_LIMITS;
  const begin = uploadBudget(limits);
  const credentials = credentialCache(deps.store);
  const seen = lastSeen(deps.store, deps.clock, deps.logger);
  return async function runUploadHandler(c) {
    const found = await deviceOf(c, credentials);
    if (!found) return answer(c, 'unknown-credential', undefined);
    const { device, hash } = found;
    let outcome = await authenticated(c, device, hash);
    // A refusal was judged on a lookup up to a minute old. Asked again of the store, so that it
    // carries an admin's ask to rotate at once, and a credential replaced meanwhile gets its 401
    // (docs/contract.md section 16); stored uploads were checked by their own statement.
    if (REFUSALS_JUDGED_AGAIN.has(outcome) && !(await stillHolds(c, hash))) outcome = 'unknown-credential';
    // A stored run wrote last seen in its own statement; every other answer to a known device touches it.
    if (outcome === 'stored') seen.written(device.id);
    else if (outcome !== 'device-unknown' && outcome !== 'unknown-credential') seen.touch(device.id);
    return answer(c, outcome, device);
  };

  async function authenticated(c: Context, found: CredentialDevice, hash: string): Promise<UploadOutcome> {
    const device = found.id;
    const id = c.req.param('id') ?? '';
    if (!RUN_ID.test(id)) return 'bad-run-id';
    const level = c.req.header('x-privacy-level') ?? '';
    if (!isPrivacyLevel(level)) return 'bad-privacy-level';
    // Refused before a byte of the body is read: nothing above the ceiling is ever stored.
    if (!withinCeiling(level, found.maxPrivacy)) {
      // The refusal is an event (audit, webhooks): only for a credential that holds now.
      if (!(await stillHolds(c, hash))) return 'unknown-credential';
      const fields = {
        account: found.owner,
        device,
        run: id,
        // Not `level`: every record's own field of that name is its log level.
        privacy: level,
        max_privacy: found.maxPrivacy,
      };
      // Nothing is stored: its webhook message is a write of its own, before the answer.
      await deps.store.enqueue(note(EVENTS.runRefusedPrivacy, fields, deps.clock.now()));
      await deps.logger.emit(EVENTS.runRefusedPrivacy, fields);
      return 'refused';
    }
    const contentType = c.req.header('content-type') ?? 'application/octet-stream';
    if (!CONTENT_TYPE.test(contentType)) return 'bad-content-type';
    const receiptHeader = c.req.header(RECEIPT_HEADER);
    let receipt: Receipt | undefined;
    if (receiptHeader !== undefined) {
      if (level === 'full') return 'receipt-with-full';
      receipt = parseReceipt(receiptHeader);
      if (!receipt) return 'bad-receipt';
    }

    // An upload for a collection's request (docs/contract.md section 15) is checked before a byte is read.
    const asked = await requestAnswered(found, id, level, c.req.header('x-collection'));
    if (typeof asked === 'string') return asked;

    // Bytes are counted as they are read, so a body without a declared length costs what it sends.
    const ticket = begin(device);
    if (ticket === 'device') return 'device-busy';
    try {
      const outcome = await store(c, found, hash, id, level, contentType, ticket, receipt);
      // Revoked (or gone) since it was remembered: the next upload asks the store again.
      if (outcome === 'device-unknown') credentials.forget(hash);
      // The run is stored (now, or by an earlier try): the request is fulfilled by it, once. Should
      // the request have closed meanwhile (expired, cancelled), the run stays stored all the same.
      if (asked.open && (outcome === 'stored' || outcome === 'already-stored'))
        await fulfilRequest(deps, found, asked.open, id, (createdAt) =>
          deps.metrics?.requestAnswered(deps.clock.now() - createdAt),
        );
      return outcome;
    } finally {
      ticket.release();
    }
  }

  async function store(
    c: Context,
    found: CredentialDevice,
    hash: string,
    id: string,
    privacy: PrivacyLevel,
    contentType: string,
    ticket: UploadTicket,
    receipt: Receipt | undefined,
  ): Promise<UploadOutcome> {
    const device = found.id;
    let body: Uint8Array;
    // What refused the last bytes taken, for the answer to 'over-budget'.
    let refused: Refusal | undefined;
    const take = (bytes: number) => (refused = ticket.take(bytes)) === undefined;
    // A declared length already past the quota is refused before a byte is read.
    const declared = declaredLength(c.req.raw);
    if (declared !== undefined && (await quotaCheck(deps, device, id, declared)) === 'over-quota')
      return (await stillHolds(c, hash)) ? overQuota(found, id, declared) : 'unknown-credential';
    try {
      body = await readBody(c.req.raw, { limit: RUN_LIMIT, take, minRate: limits.minRate });
    } catch (err) {
      // However the read ends, the ticket goes back in authenticated()'s `finally`: a stalled
      // upload frees its device's slot as soon as it is cut off.
      const code: BodyFailure = err instanceof BodyError ? err.code : 'unreadable';
      return code === 'over-budget' ? busyBy(refused) : READ_FAILURES[code];
    }
    if (declared === undefined && (await quotaCheck(deps, device, id, body.byteLength)) === 'over-quota')
      return (await stillHolds(c, hash)) ? overQuota(found, id, body.byteLength) : 'unknown-credential';
    const uploadedAt = deps.clock.now();
    const fields = { account: found.owner, device, run: id, privacy, size: body.byteLength };
    const run = {
      device,
      id,
      contentType,
      privacy,
      size: body.byteLength,
      uploadedAt,
      body,
      receipt,
      sha256: sha256Hex(body),
    };
    // run.stored's webhook message commits with the run (docs/contract.md section 13).
    const stored = note(EVENTS.runStored, fields, uploadedAt);
    let outcome = await deps.store.putRun({ ...run, credentialVersion: found.version }, stored);
    // Revoked, or the credential changed since its lookup was remembered (docs/contract.md section
    // 16: rotated, first used, asked to rotate; here or on another instance): asked again, and
    // stored when it still works, as it would have been had the lookup not been remembered.
    if (outcome === 'device-unknown') {
      credentials.forget(hash);
      const again = await deviceOf(c, credentials);
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
   * The request an upload with X-Collection answers: `open` when it is open for this device at a
   * level this upload keeps to; nothing to fulfil for the retry of the upload that fulfilled it
   * (same run id: putRun then says whether the bytes are the same); else the refusal.
   */
  async function requestAnswered(
    found: Device,
    run: string,
    level: PrivacyLevel,
    header: string | undefined,
  ): Promise<{ open?: string } | 'bad-collection' | 'request-not-open' | 'above-request'> {
    if (header === undefined) return {};
    if (!REQUEST_ID.test(header)) return 'bad-collection';
    const asked = await deps.store.requestOf(found.id, header);
    if (!asked) return 'request-not-open';
    if (asked.state === 'fulfilled' && asked.run === run) return {};
    if (!isOpen(asked.state) || asked.request.expiresAt <= deps.clock.now()) return 'request-not-open';
    if (!withinCeiling(level, asked.request.privacy)) return 'above-request';
    return { open: header };
  }

  /** Whether the credential still holds, asked of the store rather than the minute-old lookup (it also sets Paddock-Rotate). */
  async function stillHolds(c: Context, hash: string): Promise<boolean> {
    credentials.forget(hash);
    return (await deviceOf(c, credentials)) !== undefined;
  }

  /** A refusal by the quota: logged, and its webhook message written on its own (nothing is stored). */
  async function overQuota(found: Device, run: string, size: number): Promise<UploadOutcome> {
    const fields = { account: found.owner, device: found.id, run, size };
    await deps.store.enqueue(note(EVENTS.runRefusedQuota, fields, deps.clock.now()));
    await deps.logger.emit(EVENTS.runRefusedQuota, fields);
    return 'over-quota';
  }
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
