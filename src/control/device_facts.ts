/**
 * PUT /v1/device/facts (docs/contract.md section 16): the device reports what it is, a JSON object
 * of at most 32 facts that replaces its last report (at most 8 KiB, read at the minimum rate like
 * every body). 204; 400 naming the fact at fault, nothing changed. A device waiting for approval
 * may report too.
 */
import type { Handler } from 'hono';
import { BodyError, readBody } from '../http/body.ts';
import { fail } from '../http/failures.ts';
import type { ControlDeps } from './deps.ts';
import { deviceOf } from './device_auth.ts';
import { freshCredentials } from './credential_cache.ts';
import { lastSeen } from './last_seen.ts';
import { DEVICE_JSON_LIMIT } from './device_json.ts';
import { factsAt, factsJson } from './facts_body.ts';

export function deviceFacts(deps: ControlDeps): Handler {
  const credentials = freshCredentials(deps.store);
  const seen = lastSeen(deps.store, deps.clock, deps.logger);
  return async function deviceFactsHandler(c) {
    const found = await deviceOf(c, credentials);
    if (!found) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBody(c.req.raw, { limit: DEVICE_JSON_LIMIT });
    } catch (err) {
      const code = err instanceof BodyError ? err.code : undefined;
      if (code === 'too-large') return fail(c, 'requestTooLarge');
      if (code === 'too-slow' || code === 'cut-short') return fail(c, 'requestTimeout');
      return fail(c, 'badFacts', 'the body could not be read');
    }
    const body = factsJson(bytes, []);
    if (!body.ok) return fail(c, 'badFacts', body.error);
    const facts = factsAt(body, []);
    if (!facts.ok) return fail(c, 'badFacts', facts.error);
    seen.touch(found.device.id);
    // Revoked since its credential was looked up: refused as any revoked credential, nothing stored.
    if (!(await deps.store.reportFacts(found.device.id, facts.value, deps.clock.now()))) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'unknownCredential');
    }
    return c.body(null, 204);
  };
}
