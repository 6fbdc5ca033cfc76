/**
 * PUT /v1/runs/{id}: stores a run byte for byte at the privacy level the device chose.
 * Idempotent: the same id with identical bytes answers 200, with other bytes 409.
 */
import { fail } from '../http/failures.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Handler } from 'hono';
import { secretHash } from '../crypto/random.ts';
import { BodyTooLarge, declaredLength, OverBudget, readBody, readStream, TooSlow } from '../http/body.ts';
import { plainText } from '../http/responses.ts';
import { RUN_ID } from '../domain/ids.ts';
import { parseReceipt, type Receipt, RECEIPT_HEADER } from '../domain/receipt.ts';
import { isPrivacyLevel, type PrivacyLevel, withinCeiling } from '../domain/privacy.ts';
import type { Device } from '../domain/devices.ts';
import type { ControlDeps } from './app.ts';
import { credentialCache } from './credential_cache.ts';
import { lastSeen } from './last_seen.ts';
import { DEFAULT_UPLOAD_LIMITS, uploadBudget, type UploadTicket } from './upload_budget.ts';
import { EVENTS } from '../events/catalogue.ts';

export const RUN_LIMIT = 16 * 1024 * 1024;
const BEARER = /^Bearer ([A-Za-z0-9_-]{43})$/i;
const CONTENT_TYPE = /^[\x20-\x7e]{1,255}$/;

/** Small bodies with a declared length arrive at once: read directly, their length taken up front. */
const SMALL_BODY = 64 * 1024;

export function runUpload(deps: ControlDeps): Handler {
  const limits = deps.uploadLimits ?? DEFAULT_UPLOAD_LIMITS;
  const begin = uploadBudget(limits);
  const credentials = credentialCache(deps.store, deps.clock);
  const seen = lastSeen(deps.store, deps.clock, deps.logger);
  const overQuota = (device: string, id: string, size: number) => quotaCheck(deps, device, id, size);
  return async function runUploadHandler(c) {
    const credential = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    const hash = credential === undefined ? undefined : secretHash(credential);
    const device = hash === undefined ? undefined : await credentials.lookup(hash);
    // The lookup is by hash; the constant-time comparison makes the match itself leak nothing.
    if (
      !hash ||
      !device ||
      !timingSafeEqual(Buffer.from(device.credentialHash), Buffer.from(hash)) ||
      device.revokedAt !== null
    ) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    const answer = await authenticated(c, device, hash);
    // A stored run wrote last seen in its own statement; every other answer to a known device touches it.
    if (answer.status === 201) seen.written(device.id);
    else if (answer.status !== 401) seen.touch(device.id);
    return answer;
  };

  async function authenticated(c: Context, found: Device, hash: string): Promise<Response> {
    const device = found.id;
    const id = c.req.param('id') ?? '';
    if (!RUN_ID.test(id)) return fail(c, 'badRunId');
    const level = c.req.header('x-privacy-level') ?? '';
    if (!isPrivacyLevel(level)) return fail(c, 'badPrivacyLevel');
    // Refused before a byte of the body is read: nothing above the ceiling is ever stored.
    if (!withinCeiling(level, found.maxPrivacy)) {
      await deps.logger.emit(EVENTS.runRefusedPrivacy, {
        account: found.owner,
        device,
        run: id,
        // Not `level`: every record's own field of that name is its log level.
        privacy: level,
        max_privacy: found.maxPrivacy,
      });
      return fail(c, 'aboveCeiling', `max_privacy=${found.maxPrivacy}`);
    }
    const contentType = c.req.header('content-type') ?? 'application/octet-stream';
    if (!CONTENT_TYPE.test(contentType)) return fail(c, 'badContentType');
    const receiptHeader = c.req.header(RECEIPT_HEADER);
    let receipt: Receipt | undefined;
    if (receiptHeader !== undefined) {
      // A full upload removes nothing: a receipt with it is a mistake worth saying.
      if (level === 'full') return fail(c, 'badReceipt', 'a full upload removes nothing');
      receipt = parseReceipt(receiptHeader);
      if (!receipt) return fail(c, 'badReceipt');
    }

    // Bytes are counted as they are read, so a body without a declared length costs what it sends.
    const ticket = begin(device);
    if (!ticket) return busy(c);
    try {
      const answer = await store(c, device, id, level, contentType, ticket, receipt);
      // Revoked (or gone) since it was remembered: the next upload asks the store again.
      if (answer.status === 401) credentials.forget(hash);
      return answer;
    } finally {
      ticket.release();
    }
  }

  async function store(
    c: Context,
    device: string,
    id: string,
    privacy: PrivacyLevel,
    contentType: string,
    ticket: UploadTicket,
    receipt: Receipt | undefined,
  ) {
    let body: Uint8Array;
    // A declared length already past the quota is refused before a byte is read.
    const declared = declaredLength(c.req.raw);
    if (declared !== undefined && (await overQuota(device, id, declared))) return fail(c, 'quotaExceeded');
    try {
      const length = declared;
      if (length !== undefined && length <= SMALL_BODY) {
        if (!ticket.take(length)) return busy(c);
        body = await readBody(c.req.raw, RUN_LIMIT);
      } else {
        body = await readStream(c.req.raw, RUN_LIMIT, { take: ticket.take, minRate: limits.minRate });
      }
    } catch (err) {
      if (err instanceof BodyTooLarge) return fail(c, 'runTooLarge');
      if (err instanceof OverBudget) return busy(c);
      if (err instanceof TooSlow) return fail(c, 'uploadTooSlow');
      return fail(c, 'uploadInterrupted');
    }
    if (declared === undefined && (await overQuota(device, id, body.byteLength))) return fail(c, 'quotaExceeded');
    const result = await deps.store.putRun({
      device,
      id,
      contentType,
      privacy,
      size: body.byteLength,
      uploadedAt: deps.clock.now(),
      body,
      receipt,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    switch (result) {
      case 'created':
        deps.levelCheck?.stored({ device, id, privacy, body });
        return plainText(c, 201, 'stored');
      case 'identical':
        return plainText(c, 200, 'already stored');
      case 'conflict':
        return fail(c, 'runConflict');
      case 'device-unknown':
        return fail(c, 'unknownCredential');
    }
  }
}

/**
 * Whether storing `size` more bytes would take the device past PADDOCK_DEVICE_QUOTA (read from its
 * counter, kept by the store's triggers). A run already stored under this id is never refused
 * here: its retry stores nothing and must still answer 200 (or 409). Uploads of one device in
 * flight at once may each pass the check: the quota holds to within what they carry.
 */
async function quotaCheck(deps: ControlDeps, device: string, id: string, size: number): Promise<boolean> {
  const quota = deps.deviceQuotaBytes;
  if (quota === undefined) return false;
  if ((await deps.store.storedBytes(device)) + size <= quota) return false;
  return (await deps.store.runVisibleTo({ subject: '', admin: true }, device, id)) === undefined;
}

/** The device client retries a 503 after Retry-After: the memory it needs is back within moments. */
function busy(c: Context): Response {
  c.header('Retry-After', '1');
  return fail(c, 'uploadsBusy');
}
