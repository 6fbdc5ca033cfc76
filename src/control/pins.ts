/**
 * The control key's pins (docs/contract.md section 16): `GET /v1/pins` answers the set, current
 * first, and every control answer carries its digest as `Paddock-Pins`, so that a device whose set
 * is stale fetches the new one over a connection it already trusts. Open to anyone: a pin is a hash
 * of a public key, which every TLS handshake shows anyway.
 */
import type { Handler, MiddlewareHandler } from 'hono';
import { PINS_HEADER, pinsDigest } from '../domain/pins.ts';
import { fail } from '../http/failures.ts';
import type { ControlDeps } from './deps.ts';

export function pins(deps: ControlDeps): Handler {
  return function pinsHandler(c) {
    if (deps.pins === undefined) return fail(c, 'notFound');
    return c.json({ pins: deps.pins() });
  };
}

/** Sets Paddock-Pins on every answer, errors and 404s included; the digest is made again only when the set changed. */
export function pinsHeader(current: () => readonly string[]): MiddlewareHandler {
  let last: { set: readonly string[]; digest: string } | undefined;
  return async function pinsHeaderMiddleware(c, next) {
    await next();
    const set = current();
    if (last?.set !== set) last = { set, digest: pinsDigest(set) };
    c.res.headers.set(PINS_HEADER, last.digest);
  };
}
