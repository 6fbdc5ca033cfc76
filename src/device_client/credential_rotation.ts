/**
 * Credential rotation on the device's side (docs/contract.md section 16). An answer carrying
 * `Paddock-Rotate: credential` makes the device ask for a new credential (`POST /v1/credential`),
 * keep it in its state file (written whole to a new file, then renamed over the old: state.ts) and
 * only then use it: the old one works until the new one is first used, so a device that stops
 * between the answer and the save still holds a working credential, and asking again with it
 * answers the same new one.
 *
 * Several processes of one device (a watch, an upload) share the state file. Each reads it before
 * a request (control_request.ts), so that a credential another process rotated away is not
 * presented again (section 16: reuse is theft; the device would wait for an administrator); one
 * whose credential was refused meanwhile (a request held while another rotated) reads it again, and
 * when another process has rotated it takes the credential kept there and asks once more.
 */
import type { LookupFunction } from 'node:net';
import { ROTATE_CREDENTIAL, ROTATE_HEADER } from '../domain/credentials.ts';
import { pinnedRequest, type PinnedResponse } from './pinned_request.ts';
import type { DeviceState } from './state.ts';

/** What rotation needs of the client's options (control_request.ts ControlOptions has them). */
export interface RotationOptions {
  lookup?: LookupFunction | undefined;
  signal?: AbortSignal | undefined;
  log?: (line: string) => void;
  saveState?: ((state: DeviceState) => Promise<void>) | undefined;
  /** Reads the state file again: what another process of this device may have kept there since. */
  loadState?: (() => Promise<DeviceState>) | undefined;
}

const CREDENTIAL = /^[A-Za-z0-9_-]{43}$/;

/** Whether an answer asks the device to rotate its credential. */
export function rotationAsked(res: PinnedResponse): boolean {
  const value = res.headers[ROTATE_HEADER.toLowerCase()];
  return typeof value === 'string' && value.trim().toLowerCase() === ROTATE_CREDENTIAL;
}

/**
 * Rotates when the answer asks, and the new credential can be kept (a client without a state file
 * to write would lose it on exit: it keeps the old one). Nothing is thrown: a failed rotation is
 * logged and the old credential kept, and the next answer asks again.
 */
export async function rotateWhenAsked(
  state: DeviceState,
  res: PinnedResponse,
  pins: readonly string[],
  opts: RotationOptions,
): Promise<void> {
  if (!rotationAsked(res) || opts.signal?.aborted) return;
  const log = opts.log ?? (() => undefined);
  if (opts.saveState === undefined) {
    log('the server asks this device to rotate its credential, but this client has no state file to keep it in');
    return;
  }
  // Another process of this device may have rotated already: its credential is then the one to use.
  if (await adoptKept(state, opts)) return;
  let credential: string;
  try {
    const answer = await pinnedRequest({
      url: new URL('/v1/credential', state.controlUrl),
      pins,
      method: 'POST',
      headers: { authorization: `Bearer ${state.credential}`, accept: 'application/json' },
      body: new Uint8Array(0),
      lookup: opts.lookup,
      signal: opts.signal,
    });
    if (answer.status !== 201)
      throw new Error(`the server answered ${answer.status}: ${answer.body.toString('utf8').trim()}`);
    const value = (JSON.parse(answer.body.toString('utf8')) as { credential?: unknown } | null)?.credential;
    if (typeof value !== 'string' || !CREDENTIAL.test(value)) throw new Error('the answer holds no credential');
    credential = value;
  } catch (err) {
    if (opts.signal?.aborted) return;
    log(`rotating the credential: ${(err as Error).message}; the current one is kept`);
    return;
  }
  const old = state.credential;
  state.credential = credential;
  try {
    await opts.saveState(state);
  } catch (err) {
    // Not kept, so not used: the old credential still works, and asking again gives the same new one.
    state.credential = old;
    log(`rotating the credential: the new one could not be saved (${(err as Error).message}); the current one is kept`);
    return;
  }
  log('the credential was rotated: the new one is saved and in use');
}

/**
 * Before a request, and after a 401: takes the credential kept in the state file when another process of this device put
 * a different one there (a rotation). True when it did, and the request is worth asking again.
 */
export async function adoptKept(state: DeviceState, opts: RotationOptions): Promise<boolean> {
  if (opts.loadState === undefined) return false;
  let kept: DeviceState;
  try {
    kept = await opts.loadState();
  } catch {
    return false;
  }
  if (kept.device !== state.device || kept.credential === state.credential) return false;
  state.credential = kept.credential;
  opts.log?.('using the credential another process of this device rotated to');
  return true;
}
