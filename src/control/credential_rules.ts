/**
 * The credential's age on every control answer (docs/contract.md section 16). The control app's
 * middleware puts its clock and settings on each request; deviceOf (device_auth.ts) then judges
 * the credential it found: expired (older than PADDOCK_CREDENTIAL_MAX_AGE) is refused with 401 and
 * audited once, before the route does anything; due (older than PADDOCK_CREDENTIAL_ROTATE_AFTER,
 * asked by an administrator, or the credential a rotation replaced) adds `Paddock-Rotate:
 * credential` to whatever the route answers. A credential found by no lookup is looked for among
 * the replaced ones (refuseReused): reuse is theft.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Clock } from '../clock.ts';
import {
  type CredentialDevice,
  credentialExpired,
  type CredentialRules,
  DEFAULT_ROTATE_AFTER_MS,
  replacedKeepMs,
  ROTATE_CREDENTIAL,
  ROTATE_HEADER,
  rotationDue,
} from '../domain/credentials.ts';
import { credentialReused } from '../actions/credentials.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import type { ControlDeps } from './deps.ts';

const RULES = 'paddock.credentialRules';

interface Judge {
  clock: Clock;
  rules: CredentialRules;
  deps: Pick<ControlDeps, 'store' | 'logger' | 'clock'>;
}

/** The middleware of every control route: the clock and settings deviceOf judges by. */
export function credentialRules(deps: ControlDeps): MiddlewareHandler {
  const judge: Judge = {
    clock: deps.clock,
    rules: deps.credentialRules ?? { rotateAfterMs: DEFAULT_ROTATE_AFTER_MS, maxAgeMs: undefined },
    deps,
  };
  return async function credentialRulesMiddleware(c, next) {
    c.set(RULES, judge);
    await next();
  };
}

function judgeOf(c: Context): Judge {
  const judge = c.get(RULES) as Judge | undefined;
  if (judge === undefined) throw new TypeError('a control route outside the control app: no credential rules');
  return judge;
}

/** The instant a request's credential is judged at. */
export function judgedAt(c: Context): number {
  return judgeOf(c).clock.now();
}

/**
 * Refuses an expired credential (thrown: http/router.ts answers it as it stands, and the route's
 * own code never runs), else marks the answer when a rotation is due.
 */
export async function judgeCredential(c: Context, found: CredentialDevice, now: number): Promise<void> {
  const { rules, deps } = judgeOf(c);
  if (credentialExpired(found, rules, now)) {
    // Audited once per credential: the first refusal records it; the store says which one that is.
    if (found.credential.expiredAt === null) {
      const fields = {
        account: found.owner,
        client: clientAddress(c),
        device: found.id,
        issued_at: new Date(found.credential.issuedAt).toISOString(),
      };
      if (await deps.store.noteCredentialExpired(found.id, now, note(EVENTS.deviceCredentialExpired, fields, now)))
        await deps.logger.emit(EVENTS.deviceCredentialExpired, fields);
    }
    c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    throw new HTTPException(401, { res: fail(c, 'credentialExpired') });
  }
  if (rotationDue(found, rules, now)) c.header(ROTATE_HEADER, ROTATE_CREDENTIAL);
  else c.header(ROTATE_HEADER, undefined);
}

/**
 * Refuses a credential that a rotation replaced, presented after its overlap (docs/contract.md
 * section 16, reuse is theft): 401, thrown as the expiry's is, and its device made pending
 * (actions/credentials.ts, credentialReused). Returns for a credential that is simply unknown.
 * `presentedAt`: when the request arrived, for a credential judged again after its arrival.
 */
export async function refuseReused(c: Context, hash: string, presentedAt?: number): Promise<void> {
  const { deps } = judgeOf(c);
  if ((await credentialReused(deps, hash, clientAddress(c), presentedAt)) === 'unknown') return;
  c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
  throw new HTTPException(401, { res: fail(c, 'credentialReused') });
}

/** How long a rotation's replaced credential is kept (PADDOCK_CREDENTIAL_MAX_AGE, or 90 days). */
export function replacedKeep(c: Context): number {
  return replacedKeepMs(judgeOf(c).rules);
}
