/**
 * PUT /v1/runs/{id}: stores a run byte for byte at the privacy level the device chose.
 * Idempotent: the same id with identical bytes answers 200, with other bytes 409.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Handler } from 'hono';
import { secretHash } from '../crypto/random.ts';
import { BodyTooLarge, readBody } from '../http/body.ts';
import { textError } from '../http/responses.ts';
import { RUN_ID, RUN_ID_RULE } from '../domain/ids.ts';
import { isPrivacyLevel, type PrivacyLevel, PRIVACY_LEVELS_TEXT } from '../domain/privacy.ts';
import type { ControlDeps } from './app.ts';

export const RUN_LIMIT = 16 * 1024 * 1024;
const BEARER = /^Bearer ([A-Za-z0-9_-]{43})$/i;
const CONTENT_TYPE = /^[\x20-\x7e]{1,255}$/;

/**
 * Uploads are held whole until stored (a run is stored byte for byte, and checked against the same
 * id's bytes first), so the bytes held at once are bounded, all devices together: an upload
 * reserves its declared length (twice the 16 MiB limit, when it declares none) before it is read,
 * and one that does not fit, or a fifth of one device at once, is answered 503 with Retry-After;
 * the device client retries.
 */
const UPLOAD_BUDGET = 128 * 1024 * 1024;
/** Uploads of one device at once: one device, even a compromised one, cannot take the whole budget. */
const UPLOADS_PER_DEVICE = 4;

export function runUpload(deps: ControlDeps): Handler {
  const budget = deps.uploadBudgetBytes ?? UPLOAD_BUDGET;
  let held = 0;
  const perDevice = new Map<string, number>();
  return async function runUploadHandler(c) {
    const credential = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    const hash = credential === undefined ? undefined : secretHash(credential);
    const device = hash === undefined ? undefined : await deps.store.deviceByCredential(hash);
    // The lookup is by hash; the constant-time comparison makes the match itself leak nothing.
    if (
      !hash ||
      !device ||
      !timingSafeEqual(Buffer.from(device.credentialHash), Buffer.from(hash)) ||
      device.revokedAt !== null
    ) {
      c.header('WWW-Authenticate', 'Bearer');
      return textError(c, 401, 'unknown or revoked device credential');
    }

    const id = c.req.param('id') ?? '';
    if (!RUN_ID.test(id)) return textError(c, 400, RUN_ID_RULE);
    const level = c.req.header('x-privacy-level') ?? '';
    if (!isPrivacyLevel(level)) return textError(c, 400, `X-Privacy-Level must be ${PRIVACY_LEVELS_TEXT}`);
    const contentType = c.req.header('content-type') ?? 'application/octet-stream';
    if (!CONTENT_TYPE.test(contentType)) return textError(c, 400, 'bad Content-Type');

    // Without a declared length the chunks and their joined copy are briefly held together.
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    const reserved = Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, RUN_LIMIT) : 2 * RUN_LIMIT;
    const ofDevice = perDevice.get(device.id) ?? 0;
    if (held + reserved > budget || ofDevice >= UPLOADS_PER_DEVICE) {
      c.header('Retry-After', '1');
      return textError(c, 503, 'too many uploads in progress; retry shortly');
    }
    held += reserved;
    perDevice.set(device.id, ofDevice + 1);
    try {
      return await store(c, device.id, id, level, contentType);
    } finally {
      held -= reserved;
      const left = (perDevice.get(device.id) ?? 1) - 1;
      if (left === 0) perDevice.delete(device.id);
      else perDevice.set(device.id, left);
    }
  };

  async function store(c: Context, device: string, id: string, privacy: PrivacyLevel, contentType: string) {
    let body: Uint8Array;
    try {
      body = await readBody(c.req.raw, RUN_LIMIT);
    } catch (err) {
      if (err instanceof BodyTooLarge) return textError(c, 413, 'run larger than 16 MiB');
      return textError(c, 400, 'upload interrupted');
    }
    const result = await deps.store.putRun({
      device,
      id,
      contentType,
      privacy,
      size: body.byteLength,
      uploadedAt: deps.clock.now(),
      body,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    switch (result) {
      case 'created':
        return textError(c, 201, 'stored');
      case 'identical':
        return textError(c, 200, 'already stored');
      case 'conflict':
        return textError(c, 409, 'a different run with this id is already stored');
      case 'device-unknown':
        return textError(c, 401, 'unknown or revoked device credential');
    }
  }
}
