/**
 * `paddock device watch` (docs/contract.md section 15): holds a request for the device's collection
 * requests open; for each request runs the collect command, applies the level asked with the
 * client's own redaction and uploads the output with X-Collection, or declines the request with
 * why the command failed. Every request it is given ends fulfilled or declined, so none comes back
 * on the next ask. After an error it waits (backoff.ts); a revoked credential ends it.
 */
import { type PrivacyLevel, withinCeiling } from '../domain/privacy.ts';
import { pause, retryDelay } from './backoff.ts';
import { type ClientOptions, DeviceError, uploadRun } from './client.ts';
import { collect } from './collect.ts';
import { reportChangedFacts } from './facts.ts';
import { PinMismatchError } from './pinned_request.ts';
import { type CollectionRequest, declineRequest, fetchRequests } from './requests.ts';
import type { DeviceState } from './state.ts';

export interface WatchOptions extends ClientOptions {
  /** Run with `sh -c`; its standard output is the run. */
  command: string;
  /** Seconds each ask is held open by the server (1 to 60); `once` asks with 0. */
  waitS: number;
  /** Handle what is open now, then end. */
  once: boolean;
  /** The content type of the command's output. */
  contentType: string;
  random?: () => number;
}

/**
 * How the watch ended: told to stop; or, with `once`, every open request handled, each fulfilled or
 * declined as designed (`done`) or at least one refused by the server (`refused`).
 */
export type WatchEnd = 'stopped' | 'done' | 'refused';

/** The client's options, with the one sleep every wait goes through (so a stop ends it). */
type Client = ClientOptions & { sleep: (ms: number) => Promise<void> };

/** How one request ended. */
type Answer = 'fulfilled' | 'declined' | 'refused' | 'stopped';

/**
 * The level a run is uploaded at: the one asked, or the device's ceiling when the ask is above it.
 * The server skips such devices when it creates the collection; should one be asked all the same,
 * the ceiling is more private than the ask, so the upload is still accepted, and nothing above the
 * ceiling ever leaves the device.
 */
export function levelFor(asked: PrivacyLevel, ceiling: PrivacyLevel): PrivacyLevel {
  return withinCeiling(asked, ceiling) ? asked : ceiling;
}

export async function watch(state: DeviceState, opts: WatchOptions): Promise<WatchEnd> {
  // Every wait of the client, its upload retries' too, ends early when it is told to stop.
  const client: Client = { ...opts, sleep: opts.sleep ?? ((ms) => pause(ms, opts.signal)) };
  try {
    return opts.once ? await handleOpen(state, opts, client) : await hold(state, opts, client);
  } catch (err) {
    if (opts.signal?.aborted) return 'stopped';
    if (err instanceof DeviceError && err.status === 401)
      throw new DeviceError(`${err.message}; watch stopped (enroll again for a new credential)`, 401);
    throw err;
  }
}

/** `--once`: asks without waiting until nothing new is open, answering each request once. */
async function handleOpen(state: DeviceState, opts: WatchOptions, client: ClientOptions): Promise<WatchEnd> {
  const answered = new Set<string>();
  let refused = false;
  await reportChangedFacts(state, client);
  for (;;) {
    const fresh = (await fetchRequests(state, 0, client)).filter((r) => !answered.has(r.id));
    if (fresh.length === 0) {
      if (answered.size === 0) opts.log?.('no open requests');
      return refused ? 'refused' : 'done';
    }
    for (const request of fresh) {
      answered.add(request.id);
      const answer = await answerRequest(state, request, opts, client);
      if (answer === 'stopped') return 'stopped';
      if (answer === 'refused') refused = true;
    }
  }
}

/** Holds an ask open, answers what it brings, again, until stopped; waits after an error. */
async function hold(state: DeviceState, opts: WatchOptions, client: Client): Promise<WatchEnd> {
  const log = opts.log ?? (() => undefined);
  log(`watching for requests at ${state.controlUrl} (each ask held up to ${opts.waitS} s)`);
  let failures = 0;
  while (!opts.signal?.aborted) {
    try {
      // Before each ask: a machine whose facts changed while watching says so (docs/contract.md section 16).
      await reportChangedFacts(state, client);
      const requests = await fetchRequests(state, opts.waitS, client);
      failures = 0;
      for (const request of requests) {
        if ((await answerRequest(state, request, opts, client)) === 'stopped') break;
      }
    } catch (err) {
      if (opts.signal?.aborted) break;
      // A revoked device can never be answered again, nor one whose pins the server's key matches
      // none of (it needs a new link): say so and end.
      if ((err instanceof DeviceError && err.status === 401) || err instanceof PinMismatchError) throw err;
      failures++;
      const delay = retryDelay(failures, err instanceof DeviceError ? err.retryAfter : undefined, opts.random);
      log(`${(err as Error).message}; asking again in ${(delay / 1000).toFixed(1)} s`);
      await client.sleep(delay);
    }
  }
  return 'stopped';
}

/**
 * Runs the command for one request and uploads its output, or declines the request. An error
 * worth another try (the network, a busy server) is thrown: the request stays open and comes back.
 */
async function answerRequest(
  state: DeviceState,
  request: CollectionRequest,
  opts: WatchOptions,
  client: ClientOptions,
): Promise<Answer> {
  const log = opts.log ?? (() => undefined);
  const { id } = request;
  const ceiling = state.maxPrivacy ?? 'full';
  const level = levelFor(request.privacy, ceiling);
  log(`request ${id} (${request.privacy}, ${JSON.stringify(request.reason)}): running the command`);
  if (level !== request.privacy)
    log(`request ${id} asks for ${request.privacy}, above this device's ceiling (${ceiling}): sending ${level}`);
  const collected = await collect(opts.command, request, { signal: opts.signal });
  if (collected.kind === 'stopped') return 'stopped';
  if (collected.kind === 'failed') return decline(state, request, collected.reason, client, log, collected.stderr);
  try {
    const run = await uploadRun(
      state,
      { bytes: collected.bytes, contentType: opts.contentType, privacy: level, collection: id },
      client,
    );
    log(`request ${id}: run ${run.id} ${run.status === 201 ? 'stored' : 'was already stored'} (${level})`);
    return 'fulfilled';
  } catch (err) {
    // No status: the upload's own retries ran out (or it was stopped); a 401 ends the watch.
    if (!(err instanceof DeviceError) || err.status === undefined || err.status === 401) throw err;
    log(`request ${id}: ${err.message}`);
    // 409: the request is no longer open. Any other refusal is told to the operator as the
    // decline's reason, so that the request does not come back on every ask.
    if (err.status !== 409) await declineRequest(state, id, err.message, client);
    return 'refused';
  }
}

async function decline(
  state: DeviceState,
  request: CollectionRequest,
  reason: string,
  client: ClientOptions,
  log: (line: string) => void,
  stderr = '',
): Promise<Answer> {
  const outcome = await declineRequest(state, request.id, reason, client, stderr);
  if (outcome === 'not-open') {
    log(`request ${request.id}: ${reason}; it is no longer open, so it was not declined`);
    return 'refused';
  }
  log(`request ${request.id}: declined: ${reason}`);
  return 'declined';
}
