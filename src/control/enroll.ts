/** POST /v1/enroll: trades one use of an enrollment token for a device id and credential. */
import { fail } from '../http/failures.ts';
import type { Context, Handler } from 'hono';
import { randomToken, secretHash } from '../crypto/random.ts';
import { BodyError, readBody } from '../http/body.ts';
import { clientAddress } from '../http/client_address.ts';

import { newDeviceId } from '../domain/ids.ts';
import { DEVICE_NAME } from '../domain/names.ts';
import type { ControlDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import type { Device } from '../domain/devices.ts';
import { factsAt } from './facts_body.ts';

const TOKEN = /^[A-Za-z0-9_-]{1,512}$/;
const ENROLL_LIMIT = 65_536;

export function enroll(deps: ControlDeps): Handler {
  return async function enrollHandler(c) {
    let request: unknown;
    let text: string;
    try {
      const body = await readBody(c.req.raw, { limit: ENROLL_LIMIT });
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
      request = JSON.parse(text);
    } catch (err) {
      const code = err instanceof BodyError ? err.code : undefined;
      if (code === 'too-large') return fail(c, 'requestTooLarge');
      if (code === 'too-slow' || code === 'cut-short') return fail(c, 'requestTimeout');
      return fail(c, 'notJsonObject');
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request)) return fail(c, 'notJsonObject');
    const { token, name, facts } = request as Record<string, unknown>;
    if (typeof token !== 'string' || token === '') return fail(c, 'tokenMissing');
    if (name !== undefined && (typeof name !== 'string' || !DEVICE_NAME.test(name))) {
      return fail(c, 'badDeviceName');
    }

    // Facts are checked before the token is used: a refusal leaves the token's uses as they were.
    const reported = facts === undefined ? undefined : factsAt({ value: request, text }, ['facts']);
    if (reported && !reported.ok) return fail(c, 'badFacts', reported.error);

    // A string no mint could have made is an unknown token, answered as such.
    if (!TOKEN.test(token)) return refuse(deps, c);

    const deviceId = newDeviceId();
    const credential = randomToken(32);
    const now = deps.clock.now();
    const enrolledFields = (d: Device) => ({ client: clientAddress(c), device: d.id, owner: d.owner });
    const device = await deps.store.enrollDevice(
      {
        tokenHash: secretHash(token),
        now,
        deviceId,
        name: name ?? deviceId,
        credentialHash: secretHash(credential),
        facts: reported?.value,
        from: clientAddress(c),
      },
      // device.enrolled's webhook message commits with the device, and device.pending's with a
      // device that waits for approval (docs/contract.md section 16).
      (d) =>
        d.pendingSince === null
          ? note(EVENTS.deviceEnrolled, enrolledFields(d), now)
          : [note(EVENTS.deviceEnrolled, enrolledFields(d), now), note(EVENTS.devicePending, enrolledFields(d), now)],
    );
    // One answer for unknown, used-up, revoked and expired tokens, so the endpoint reveals nothing about them.
    if (!device) return refuse(deps, c);
    await deps.logger.emit(EVENTS.deviceEnrolled, enrolledFields(device));
    if (device.pendingSince !== null) await deps.logger.emit(EVENTS.devicePending, enrolledFields(device));
    // `status` says whether the device waits for approval, so that a client can say so (section 22).
    return c.json({ device: device.id, credential, status: device.pendingSince === null ? 'active' : 'pending' }, 201);
  };
}

/**
 * A token refused: logged each time, audited at most once a minute per address with its count
 * (docs/contract.md section 23), so guessing is seen without writing a row a guess.
 */
async function refuse(deps: ControlDeps, c: Context): Promise<Response> {
  await deps.logger.emit(EVENTS.enrollRefused, { client: clientAddress(c) });
  return fail(c, 'unknownEnrollToken');
}
