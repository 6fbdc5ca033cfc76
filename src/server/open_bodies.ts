/**
 * Bodies in flight before any credential is checked, capped per client address (docs/contract.md
 * section 23). On a route open without a credential (`POST /v1/enroll`, `/login`, `/logout`,
 * `/oidc/backchannel-logout`) anyone can send a head, part of a body and stall; each such
 * connection holds its request's heap for the body door's grace and minimum rate (http/body.ts).
 * The connection ceiling (connections.ts) keeps their sum within the heap; this cap keeps one
 * client from taking that whole ceiling. A client counts as the throttle counts it: an IPv4
 * address, an IPv6 /64 (throttle/throttle_key.ts). Why 256, and why 429: docs/decisions.md,
 * "Issue 42: the heap holds".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { controlRoutes } from '../control/routes.ts';
import { interfaceRoutes } from '../host/interface.ts';
import { socketAddress } from '../http/client_address.ts';
import { pathMatcher } from '../http/router.ts';
import { throttleKey } from '../throttle/throttle_key.ts';

/** Bodies in flight at once from one client address on the routes open without a credential. */
export const OPEN_BODIES_PER_CLIENT = 256;

/** The routes whose body is read before any credential is checked, from their tables. */
const OPEN_BODY_ROUTES = [
  ...interfaceRoutes.filter((r) => r.access === 'none'),
  ...controlRoutes.filter((r) => r.open),
].filter((r) => r.method === 'POST' || r.method === 'PUT');

export interface OpenBodies {
  /**
   * Counts a request that carries a body to an open route until its body has arrived or it is
   * answered; false (nothing counted) when its client already has `perClient` in flight.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
  /** Bodies in flight now, for `client` (as the throttle keys it) or in all. */
  inFlight(client?: string): number;
}

export interface OpenBodiesOptions {
  /** OPEN_BODIES_PER_CLIENT by default. */
  perClient?: number;
  /** The routes open without a credential that take a body; by default from the routes tables. */
  routes?: ReadonlyArray<{ method: string; path: string }>;
}

export function openBodies({
  perClient = OPEN_BODIES_PER_CLIENT,
  routes = OPEN_BODY_ROUTES,
}: OpenBodiesOptions = {}): OpenBodies {
  const byMethod = new Map<string, (path: string) => boolean>();
  for (const method of new Set(routes.map((r) => r.method)))
    byMethod.set(method, pathMatcher(routes.filter((r) => r.method === method)));
  const counts = new Map<string, number>();
  let total = 0;
  return {
    admit: function admitOpenBody(req, res) {
      if (!hasBody(req)) return true;
      const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
      if (!byMethod.get(req.method ?? '')?.(path)) return true;
      const client = throttleKey(socketAddress(req.socket));
      const count = counts.get(client) ?? 0;
      if (count >= perClient) return false;
      counts.set(client, count + 1);
      total++;
      let counted = true;
      const release = () => {
        if (!counted) return;
        counted = false;
        total--;
        const left = (counts.get(client) ?? 1) - 1;
        if (left > 0) counts.set(client, left);
        else counts.delete(client);
      };
      // The body whole (read by the route), or the request answered or gone, whichever is first.
      req.once('end', release);
      res.once('close', release);
      return true;
    },
    inFlight: (client) => (client === undefined ? total : (counts.get(client) ?? 0)),
  };
}

/** A request with a body to come: a Content-Length above zero, or a transfer coding (RFC 9112 section 6.3). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
