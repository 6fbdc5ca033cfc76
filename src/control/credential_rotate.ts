/**
 * POST /v1/credential (docs/contract.md section 16): a new credential for the device presenting
 * one. `201 {"credential": string}`; the old one keeps working until the new one is first used or
 * 10 minutes pass. The body is empty or `{}` (at most 8 KiB, read at the minimum rate like every
 * body). Rotating again with the old one during the overlap answers the same new credential
 * (actions/credentials.ts), so a lost answer or a racing rotation never strands the device; so does
 * rotating again with the new one within a minute (at most one rotation a minute).
 */
import type { Handler } from 'hono';
import { rotateCredential } from '../actions/credentials.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import { ROTATE_HEADER } from '../domain/credentials.ts';
import type { ControlDeps } from './deps.ts';
import { bearerCredential, deviceOf } from './device_auth.ts';
import { freshCredentials } from './credential_cache.ts';
import { lastSeen } from './last_seen.ts';
import { replacedKeep } from './credential_rules.ts';
import { deviceJsonObject } from './device_json.ts';

export function credentialRotate(deps: ControlDeps): Handler {
  // Read from the store on each call: a rotation must see the credential as it is now.
  const credentials = freshCredentials(deps.store);
  const seen = lastSeen(deps.store, deps.clock, deps.logger);
  return async function credentialRotateHandler(c) {
    const found = await deviceOf(c, credentials);
    if (!found) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    const body = await deviceJsonObject(c);
    if (body instanceof Response) return body;
    if (Object.keys(body).length > 0) return fail(c, 'credentialBody');
    seen.touch(found.device.id);
    const presented = bearerCredential(c) ?? '';
    const outcome = await rotateCredential(deps, found.device, presented, clientAddress(c), replacedKeep(c));
    if (outcome === 'gone') {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    // The new credential is not due: the answer that hands it over asks for nothing more.
    c.header(ROTATE_HEADER, undefined);
    c.header('Cache-Control', 'no-store');
    return c.json({ credential: outcome.credential }, 201);
  };
}
