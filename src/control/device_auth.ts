/**
 * The device's credential on every control route but enrollment (docs/contract.md section 6):
 * `Authorization: Bearer <credential>`, looked up by its hash (credential_cache.ts) and compared in
 * constant time; a revoked device's credential is unknown, and so is the one a rotation replaced
 * once its overlap is over (docs/contract.md section 16). The credential's age is judged here too
 * (credential_rules.ts): an expired one is refused, a due one marks the answer; and a replaced one
 * presented after its overlap is refused as reused, its device made pending (reuse is theft).
 *
 * Approval (docs/contract.md section 16) is checked here too, so that no route can forget it: a
 * pending device is answered 403 on every route but those whose row in routes.ts says
 * `whilePending` (its facts), before the route has read its body or stored anything. A device
 * pending for a reused credential is refused on those too: neither copy reaches anything.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { fail } from '../http/failures.ts';
import { secretHash } from '../crypto/random.ts';
import { type CredentialDevice, credentialWorks } from '../domain/credentials.ts';
import type { CredentialCache } from './credential_cache.ts';
import { judgeCredential, judgedAt, refuseReused } from './credential_rules.ts';

const BEARER = /^Bearer ([A-Za-z0-9_-]{43})$/i;

/** The credential of the request's `Authorization: Bearer`, when it has the shape of one. */
export function bearerCredential(c: Context): string | undefined {
  return BEARER.exec(c.req.header('authorization') ?? '')?.[1];
}

/** The device of the request's credential and the credential's hash, or undefined when it is unknown or revoked. */
export async function deviceOf(
  c: Context,
  credentials: CredentialCache,
): Promise<{ device: CredentialDevice; hash: string } | undefined> {
  const credential = bearerCredential(c);
  if (credential === undefined) return undefined;
  const hash = secretHash(credential);
  const now = judgedAt(c);
  const device = await credentials.lookup(hash, now);
  // A route may judge the credential again after the request arrived (an upload whose credential
  // changed while its body arrived, a held request woken): reuse is judged by the arrival.
  const arrived = c.get(ARRIVED) as number | undefined;
  if (arrived === undefined) c.set(ARRIVED, now);
  // Found by no lookup, or a replaced one past its overlap (as remembered): perhaps reused (thrown).
  if (!device || (device.revokedAt === null && !credentialWorks(device, now))) {
    await refuseReused(c, hash, arrived);
    return undefined;
  }
  // The lookup is by hash; the constant-time comparison makes the match itself leak nothing.
  if (!timingSafeEqual(Buffer.from(device.credentialHash), Buffer.from(hash)) || device.revokedAt !== null)
    return undefined;
  await judgeCredential(c, device, now);
  // Thrown, so the route's own code never runs: http/router.ts answers it as it stands.
  if (device.pendingSince !== null) {
    if (device.pendingReason !== null) throw new HTTPException(403, { res: fail(c, 'awaitingApprovalReused') });
    if (c.get(WHILE_PENDING) !== true) throw new HTTPException(403, { res: fail(c, 'awaitingApproval') });
  }
  return { device, hash };
}

const WHILE_PENDING = 'paddock.whilePending';
/** When deviceOf first judged the request's credential: its arrival, by which reuse is judged. */
const ARRIVED = 'paddock.credentialArrived';

/** Lets a pending device through deviceOf on this request: the middleware of a `whilePending` row (app.ts). */
export const allowWhilePending: MiddlewareHandler = async function allowWhilePending(c, next) {
  c.set(WHILE_PENDING, true);
  await next();
};
