/**
 * POST /v1/requests/{id}/decline (docs/contract.md section 15): the device says no, with an
 * optional reason of at most 200 characters (JSON `{"reason"?: string}`, at most 8 KiB, read at
 * the minimum rate like every body). 204; 404 for another device's or an unknown request; 409 when
 * it is not open.
 */
import type { Handler } from 'hono';
import { declineRequest } from '../actions/collections.ts';
import { BodyError, readBody } from '../http/body.ts';
import { fail } from '../http/failures.ts';
import type { ControlDeps } from './deps.ts';
import { deviceOf } from './device_auth.ts';
import { freshCredentials } from './credential_cache.ts';
import { lastSeen } from './last_seen.ts';

/** The device routes' JSON bodies other than uploads (docs/contract.md section 15). */
export const DEVICE_JSON_LIMIT = 8 * 1024;

export function requestDecline(deps: ControlDeps): Handler {
  const credentials = freshCredentials(deps.store);
  const seen = lastSeen(deps.store, deps.clock, deps.logger);
  return async function requestDeclineHandler(c) {
    const found = await deviceOf(c, credentials);
    if (!found) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    let body: unknown;
    try {
      const bytes = await readBody(c.req.raw, { limit: DEVICE_JSON_LIMIT });
      body = bytes.byteLength === 0 ? {} : JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (err) {
      const code = err instanceof BodyError ? err.code : undefined;
      if (code === 'too-large') return fail(c, 'requestTooLarge');
      if (code === 'too-slow' || code === 'cut-short') return fail(c, 'requestTimeout');
      return fail(c, 'notJsonObject');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(c, 'notJsonObject');
    const { reason, ...rest } = body as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || (reason !== undefined && typeof reason !== 'string')) {
      return fail(c, 'badDeclineReason');
    }
    seen.touch(found.device.id);
    const outcome = await declineRequest(deps, found.device, c.req.param('id') ?? '', reason ?? '', (createdAt) =>
      deps.metrics?.requestAnswered(deps.clock.now() - createdAt),
    );
    if (outcome === 'bad-reason') return fail(c, 'badDeclineReason');
    if (outcome === 'unknown') return fail(c, 'requestNotFound');
    if (outcome === 'not-open') return fail(c, 'requestNotOpen');
    return c.body(null, 204);
  };
}
