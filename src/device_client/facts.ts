/**
 * The facts the reference client reports (docs/contract.md section 16): `os`, `os_version`,
 * `arch`, `hostname` and `client_version`, at enrollment and whenever they change. The last set the
 * server accepted is kept in the state file; before each upload and each ask of a watch the client
 * compares what it finds now with it, and reports only a difference.
 */
import { arch, hostname, release } from 'node:os';
import { emptyFacts, FACT_VALUE, FACT_VALUE_MAX, type Facts, sameFacts } from '../domain/facts.ts';
import { VISIBLE_CHAR } from '../domain/names.ts';
import { version } from '../version.ts';
import { DeviceError, type ClientOptions } from './client.ts';
import { controlRequest } from './control_request.ts';
import type { DeviceState } from './state.ts';

const INVISIBLE = new RegExp(`(?!${VISIBLE_CHAR}).`, 'gsu');

/** A value as the server accepts it: invisible characters as `?`, at most 255 characters. */
function factValue(text: string): string {
  const value = [...text.replace(INVISIBLE, '?')].slice(0, FACT_VALUE_MAX).join('');
  return FACT_VALUE.test(value) ? value : '';
}

/** What this machine is now. */
export function localFacts(): Facts {
  const facts = emptyFacts();
  facts.arch = factValue(arch());
  facts.client_version = factValue(version);
  facts.hostname = factValue(hostname());
  facts.os = factValue(process.platform);
  facts.os_version = factValue(release());
  return facts;
}

/** PUT /v1/device/facts: replaces what the server holds of this device with `facts`. */
export async function reportFacts(state: DeviceState, facts: Facts, opts: ClientOptions = {}): Promise<void> {
  const res = await controlRequest(
    state,
    {
      url: new URL('/v1/device/facts', state.controlUrl),
      method: 'PUT',
      headers: { authorization: `Bearer ${state.credential}`, 'content-type': 'application/json' },
      body: new TextEncoder().encode(JSON.stringify(facts)),
    },
    opts,
  );
  if (res.status !== 204)
    throw new DeviceError(`facts refused (${res.status}): ${res.body.toString('utf8').trim()}`, res.status);
}

/**
 * Reports this machine's facts when they differ from the last set reported, and keeps the new set
 * in the state (saved through `saveState`). A failure is logged, never thrown: the upload or watch
 * it precedes goes on (and meets the same refusal if the device is refused), and the next one tries
 * again. Whether it reported.
 */
export async function reportChangedFacts(
  state: DeviceState,
  opts: ClientOptions = {},
  now: Facts = localFacts(),
): Promise<boolean> {
  if (state.facts !== undefined && sameFacts(state.facts, now)) return false;
  try {
    await reportFacts(state, now, opts);
  } catch (err) {
    if (!opts.signal?.aborted) opts.log?.(`reporting this device's facts: ${(err as Error).message}`);
    return false;
  }
  state.facts = { ...now };
  await opts.saveState?.(state);
  opts.log?.("reported this device's facts (they changed)");
  return true;
}
