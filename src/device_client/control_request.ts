/**
 * A request of an enrolled device to the control API (docs/contract.md section 16): trusted through
 * any pin the device holds, and the held set kept current. Every control answer carries
 * `Paddock-Pins`, the digest of the server's set; when it differs from the device's own, the device
 * fetches `GET /v1/pins` over a connection its pins trust, and keeps the new set unless it drops the
 * next pin held (pin_set.ts, section 23). A device that has checked in since the last rotation so
 * holds the key the next one makes current.
 */
import type { LookupFunction } from 'node:net';
import { PINS_HEADER, pinsDigest } from '../domain/pins.ts';
import { PinMismatchError, pinnedRequest, type PinnedRequest, type PinnedResponse } from './pinned_request.ts';
import type { DeviceState } from './state.ts';
import { adoptKept, rotateWhenAsked } from './credential_rotation.ts';
import { pinSet, pinSetRefusal } from './pin_set.ts';

/** What a device's requests need of the client's options (client.ts ClientOptions extends it). */
export interface ControlOptions {
  lookup?: LookupFunction | undefined;
  /** Stops the client (SIGINT, SIGTERM): a request in flight ends, and no retry follows. */
  signal?: AbortSignal | undefined;
  log?: (line: string) => void;
  /** Keeps the state once the client changed it (a new pin set, a new credential), before the next request. */
  saveState?: ((state: DeviceState) => Promise<void>) | undefined;
  /** Reads the state file again (credential_rotation.ts: another process may have rotated the credential). */
  loadState?: (() => Promise<DeviceState>) | undefined;
}

/**
 * How long the set a pin update replaced is still trusted: instances sharing the store serve a
 * rotated key within 60 s, so for a minute one may still present the old key; 90 s gives a margin
 * and no more (a leaked key rotated away stays trusted that long by the devices that learned of it).
 */
export const RETIRED_PINS_MS = 90_000;

const NEW_LINK =
  ': the control key has been replaced at least twice since this device last checked in, or this is not its server; this device needs a new enrollment link (enroll again)';

/** The pins trusted now: the held set, and the set it replaced while its grace lasts. */
export function trustedPins(state: DeviceState, now = Date.now()): string[] {
  const retired = state.retiredPins;
  if (retired === undefined || !(Date.parse(retired.until) > now)) return state.pins;
  return [...state.pins, ...retired.pins.filter((pin) => !state.pins.includes(pin))];
}

/** A pinned request to the device's control URL, after which its pin set is brought up to date. */
export async function controlRequest(
  state: DeviceState,
  req: Omit<PinnedRequest, 'pins' | 'lookup' | 'signal'>,
  opts: ControlOptions = {},
): Promise<PinnedResponse> {
  // Reuse is theft (docs/contract.md section 16): a credential another process of this device has
  // rotated away must not be presented again, so the state file is read before each request too.
  const asked =
    req.headers.authorization !== undefined && (await adoptKept(state, opts))
      ? { ...req, headers: { ...req.headers, authorization: `Bearer ${state.credential}` } }
      : req;
  let res = await send(state, asked, opts);
  // Refused: another process of this device may have rotated its credential (credential_rotation.ts).
  if (res.status === 401 && req.headers.authorization !== undefined && (await adoptKept(state, opts)))
    res = await send(state, { ...req, headers: { ...req.headers, authorization: `Bearer ${state.credential}` } }, opts);
  await updatePins(state, res, opts);
  await rotateWhenAsked(state, res, trustedPins(state), opts);
  return res;
}

async function send(
  state: DeviceState,
  req: Omit<PinnedRequest, 'pins' | 'lookup' | 'signal'>,
  opts: ControlOptions,
): Promise<PinnedResponse> {
  try {
    return await pinnedRequest({ ...req, pins: trustedPins(state), lookup: opts.lookup, signal: opts.signal });
  } catch (err) {
    if (!(err instanceof PinMismatchError)) throw err;
    throw new PinMismatchError(err.host, err.expected, err.actual, 'this device holds only the pins', NEW_LINK);
  }
}

/**
 * When the answer's `Paddock-Pins` differs from the digest of the device's set, fetches the server's
 * set and keeps it (saved through `saveState`). Nothing is thrown: a failed update is logged, the
 * set is kept, and the next answer tries again. An answer over a key trusted only through the
 * retired set comes from an instance that has not yet loaded the rotation; it is not asked.
 */
export async function updatePins(state: DeviceState, res: PinnedResponse, opts: ControlOptions): Promise<void> {
  const advertised = res.headers[PINS_HEADER.toLowerCase()];
  if (typeof advertised !== 'string' || advertised === pinsDigest(state.pins) || !state.pins.includes(res.pin)) return;
  const log = opts.log ?? (() => undefined);
  let pins: string[];
  try {
    const answer = await pinnedRequest({
      url: new URL('/v1/pins', state.controlUrl),
      pins: state.pins,
      method: 'GET',
      headers: { accept: 'application/json' },
      lookup: opts.lookup,
      signal: opts.signal,
    });
    if (answer.status !== 200) throw new Error(`the server answered ${answer.status}`);
    pins = pinSet(answer.body);
    // A set without the key it came over would leave the device trusting nothing it has seen.
    if (!pins.includes(answer.pin)) throw new Error(`the set does not hold the key it was fetched over`);
    // Section 23: the answer may come from a thief of the current key; pin_set.ts says why.
    const refusal = pinSetRefusal(state.pins, pins);
    if (refusal !== undefined) throw new Error(refusal);
  } catch (err) {
    if (opts.signal?.aborted) return;
    log(`updating the control key's pins: ${(err as Error).message}; the pins held are kept`);
    return;
  }
  if (pins.join(',') === state.pins.join(',')) return;
  state.retiredPins = { pins: state.pins, until: new Date(Date.now() + RETIRED_PINS_MS).toISOString() };
  state.pins = pins;
  // The whole state is written: take a credential another process rotated to first, never undo it.
  await adoptKept(state, opts);
  await opts.saveState?.(state);
  log(`the control key's pins are now ${pins.join(' and ')}`);
}
