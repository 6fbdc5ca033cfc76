/**
 * POST /v1/requests/{id}/decline (docs/contract.md section 15): the device says no, with an
 * optional reason of at most 200 characters and, when its command failed, the end of the command's
 * standard error (JSON `{"reason"?: string, "stderr"?: string}`, at most 8 KiB, read at the minimum
 * rate like every body; `stderr` as domain/collections.ts isDeclineStderr says). 204; 404 for
 * another device's or an unknown request; 409 when it is not open.
 */
import type { Handler } from 'hono';
import { declineRequest } from '../actions/collections.ts';
import { fail } from '../http/failures.ts';
import type { ControlDeps } from './deps.ts';
import { deviceOf } from './device_auth.ts';
import { freshCredentials } from './credential_cache.ts';
import { lastSeen } from './last_seen.ts';
import { deviceJsonObject } from './device_json.ts';

export function requestDecline(deps: ControlDeps): Handler {
  const credentials = freshCredentials(deps.store);
  const seen = lastSeen(deps.store, deps.clock, deps.logger);
  return async function requestDeclineHandler(c) {
    const found = await deviceOf(c, credentials);
    if (!found) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    const body = await deviceJsonObject(c);
    if (body instanceof Response) return body;
    const { reason, stderr, ...rest } = body;
    if (Object.keys(rest).length > 0 || (reason !== undefined && typeof reason !== 'string')) {
      return fail(c, 'badDeclineReason');
    }
    if (stderr !== undefined && typeof stderr !== 'string') return fail(c, 'badDeclineStderr');
    seen.touch(found.device.id);
    const outcome = await declineRequest(
      deps,
      found.device,
      c.req.param('id') ?? '',
      reason ?? '',
      (createdAt) => deps.metrics?.requestAnswered(deps.clock.now() - createdAt),
      stderr ?? null,
    );
    if (outcome === 'bad-reason') return fail(c, 'badDeclineReason');
    if (outcome === 'bad-stderr') return fail(c, 'badDeclineStderr');
    if (outcome === 'unknown') return fail(c, 'requestNotFound');
    if (outcome === 'not-open') return fail(c, 'requestNotOpen');
    return c.body(null, 204);
  };
}
