/** POST /v1/enroll: trades a single-use enrollment token for a device id and credential. */
import type { Handler } from 'hono';
import { randomToken, secretHash } from '../crypto/random.ts';
import { BodyTooLarge, readBody } from '../http/body.ts';
import { textError } from '../http/responses.ts';
import { newDeviceId } from '../domain/ids.ts';
import { DEVICE_NAME, DEVICE_NAME_RULE } from '../domain/names.ts';
import type { ControlDeps } from './app.ts';

const TOKEN = /^[A-Za-z0-9_-]{1,512}$/;
const UNKNOWN_TOKEN = 'enrollment token unknown, used or expired';

export function enroll(deps: ControlDeps): Handler {
  return async function enrollHandler(c) {
    let request: unknown;
    try {
      request = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await readBody(c.req.raw, 65_536)));
    } catch (err) {
      if (err instanceof BodyTooLarge) return textError(c, 413, 'request too large');
      return textError(c, 400, 'body must be a JSON object');
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      return textError(c, 400, 'body must be a JSON object');
    const { token, name } = request as Record<string, unknown>;
    if (typeof token !== 'string' || token === '') return textError(c, 400, 'token must be a non-empty string');
    if (name !== undefined && (typeof name !== 'string' || !DEVICE_NAME.test(name))) {
      return textError(c, 400, DEVICE_NAME_RULE);
    }

    // A string no mint could have made is an unknown token, answered as such.
    if (!TOKEN.test(token)) return textError(c, 401, UNKNOWN_TOKEN);

    const deviceId = newDeviceId();
    const credential = randomToken(32);
    const device = await deps.store.enrollDevice({
      tokenHash: secretHash(token),
      now: deps.clock.now(),
      deviceId,
      name: name ?? deviceId,
      credentialHash: secretHash(credential),
    });
    // One answer for unknown, used and expired tokens, so the endpoint reveals nothing about them.
    if (!device) return textError(c, 401, UNKNOWN_TOKEN);
    deps.logger.log('info', 'device.enrolled', { device: device.id, owner: device.owner });
    return c.json({ device: device.id, credential }, 201);
  };
}
