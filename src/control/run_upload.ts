/**
 * PUT /v1/runs/{id}: stores a run byte for byte at the privacy level the device chose.
 * Idempotent: the same id with identical bytes answers 200, with other bytes 409.
 */
import { fail } from '../http/failures.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Handler } from 'hono';
import { secretHash } from '../crypto/random.ts';
import { BodyTooLarge, readBody } from '../http/body.ts';
import { plainText } from '../http/responses.ts';
import { RUN_ID } from '../domain/ids.ts';
import { isPrivacyLevel, type PrivacyLevel } from '../domain/privacy.ts';
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
      return fail(c, 'unknownCredential');
    }

    const id = c.req.param('id') ?? '';
    if (!RUN_ID.test(id)) return fail(c, 'badRunId');
    const level = c.req.header('x-privacy-level') ?? '';
    if (!isPrivacyLevel(level)) return fail(c, 'badPrivacyLevel');
    const contentType = c.req.header('content-type') ?? 'application/octet-stream';
    if (!CONTENT_TYPE.test(contentType)) return fail(c, 'badContentType');

    // Without a declared length the chunks and their joined copy are briefly held together.
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    const reserved = Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, RUN_LIMIT) : 2 * RUN_LIMIT;
    const ofDevice = perDevice.get(device.id) ?? 0;
    if (held + reserved > budget || ofDevice >= UPLOADS_PER_DEVICE) {
      c.header('Retry-After', '1');
      return fail(c, 'uploadsBusy');
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
      if (err instanceof BodyTooLarge) return fail(c, 'runTooLarge');
      return fail(c, 'uploadInterrupted');
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
