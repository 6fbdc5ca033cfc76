/**
 * GET /v1/requests?wait= (docs/contract.md section 15): the device's open requests, oldest first,
 * at most 5; those returned become delivered. With `wait` (1 to 60 seconds) and none open, the
 * answer is held until a collection reaches the device on any instance sharing the store (then
 * within a second), the wait passes (an empty list), a newer held request of the same device takes
 * its place (an empty list), or the server drains (an empty list). Woken requests come from the hub,
 * which reads them for many held devices at once (collections/hub.ts). A held request counts as the
 * device being seen, is never shed as an idle connection, and answers 401 once the device is revoked.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Handler } from 'hono';
import { type DeviceRequest, MAX_OPEN_PER_DEVICE, MAX_WAIT_S } from '../domain/collections.ts';
import { fail } from '../http/failures.ts';
import { holdConnection } from '../http/held_connections.ts';
import type { ControlDeps } from './deps.ts';
import { deviceOf } from './device_auth.ts';
import { freshCredentials } from './credential_cache.ts';
import { lastSeen } from './last_seen.ts';
import { requestHub } from '../collections/hub.ts';

/** 0 to 60, as written: no sign, no leading zero, no fraction. */
const WAIT = /^(0|[1-9][0-9]?)$/;

export function deviceRequests(deps: ControlDeps): Handler {
  const hub = deps.requests ?? requestHub(deps.store, deps.clock);
  // Read from the store on each call (no cache): a revoked device is refused at once.
  const credentials = freshCredentials(deps.store);
  const seen = lastSeen(deps.store, deps.clock, deps.logger);
  return async function deviceRequestsHandler(c) {
    const found = await deviceOf(c, credentials);
    if (!found) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    const waits = c.req.queries('wait') ?? [];
    const wait = waits[0] ?? '0';
    if (waits.length > 1 || !WAIT.test(wait) || Number(wait) > MAX_WAIT_S) return fail(c, 'badWait');
    const device = found.device.id;
    seen.touch(device);
    let requests = await deps.store.takeRequests(device, deps.clock.now(), MAX_OPEN_PER_DEVICE);
    if (requests.length === 0 && wait !== '0') {
      const release = heldConnection(c);
      try {
        const end = await hub.hold(device, Number(wait) * 1000);
        // Woken, the hub read the requests and the device's credential version for many devices at
        // once: the credential is judged again only when it changed while held (a rotation, say).
        const unchanged = end.how === 'woken' && end.credentialVersion === found.device.version;
        // Revoked while it was held, here or on another instance: its credential is no more.
        if (end.how === 'revoked' || (!unchanged && !(await deviceOf(c, credentials)))) {
          c.header('WWW-Authenticate', 'Bearer');
          return fail(c, 'unknownCredential');
        }
        if (end.how === 'woken') requests = end.requests;
        seen.touch(device);
      } finally {
        release();
      }
    }
    c.header('Cache-Control', 'no-store');
    return c.json({ requests: requests.map(requestJson) });
  };
}

function requestJson(r: DeviceRequest) {
  return {
    id: r.id,
    privacy: r.privacy,
    reason: r.reason,
    created_at: new Date(r.createdAt).toISOString(),
    expires_at: new Date(r.expiresAt).toISOString(),
  };
}

/** Marks the request's connection as held (never shed as idle); nothing in-process (app.request). */
function heldConnection(c: Context): () => void {
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  return socket && typeof socket.on === 'function' ? holdConnection(socket) : () => undefined;
}
