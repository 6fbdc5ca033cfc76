/**
 * POST /v1/requests/{id}/decline (docs/contract.md section 15): the device says no, with an
 * optional reason of at most 200 characters (JSON `{"reason"?: string}`, at most 8 KiB, read at
 * the minimum rate like every body). 204; 404 for another device's or an unknown request; 409 when
 * it is not open.
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
    const { reason, ...rest } = body;
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
