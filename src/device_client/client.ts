/**
 * The reference device client: enrollment through an enrollment link (discovery optional, pin
 * mandatory) and run upload with the privacy level applied on the device, with retries.
 */
import { formatReceipt, RECEIPT_HEADER, rulesDigest } from '../domain/receipt.ts';
import { countFindings } from '../domain/redaction.ts';
import { version } from '../version.ts';
import { withinCeiling } from '../domain/privacy.ts';
import { createHash } from 'node:crypto';
import { discoverControlUrl } from './discover.ts';
import { parseEnrollmentLink } from './link.ts';
import { pinnedRequest } from './pinned_request.ts';
import { controlRequest, type ControlOptions, updatePins } from './control_request.ts';
import { isAddressableRunId } from '../domain/ids.ts';
import { applyPrivacy, type PrivacyLevel } from '../domain/redaction.ts';
import type { DeviceState } from './state.ts';
import type { Facts } from '../domain/facts.ts';

export interface ClientOptions extends ControlOptions {
  /** Extra CA certificate (PEM) trusted for discovery only; the control connection trusts only the pins. */
  discoveryCa?: string | undefined;
  sleep?: (ms: number) => Promise<void>;
}

export class DeviceError extends Error {
  readonly status: number | undefined;
  /** Seconds a busy server asked the device to wait (Retry-After), when it gave them. */
  readonly retryAfter: number | undefined;
  constructor(message: string, status?: number, retryAfter?: number) {
    super(message);
    this.name = 'DeviceError';
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/**
 * Enrolls with a link, reporting `facts` (device_client/facts.ts) with it; returns the state to
 * keep. Not retried: a token works once.
 */
export async function enroll(
  linkText: string,
  name: string | undefined,
  opts: ClientOptions = {},
  facts?: Facts,
): Promise<DeviceState> {
  const link = parseEnrollmentLink(linkText);
  let controlUrl = link.control;
  if (controlUrl === undefined) {
    const discovered = await discoverControlUrl(link.server, { ca: opts.discoveryCa, lookup: opts.lookup });
    opts.log?.(
      discovered ? `discovery: connecting to ${discovered}` : `discovery unavailable: connecting to ${link.server}`,
    );
    controlUrl = discovered ?? `https://${link.server}`;
  }
  const res = await pinnedRequest({
    url: new URL('/v1/enroll', controlUrl),
    pins: link.pins,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode(
      JSON.stringify({ token: link.token, ...(name === undefined ? {} : { name }), ...(facts && { facts }) }),
    ),
    lookup: opts.lookup,
  });
  if (res.status !== 201)
    throw new DeviceError(`enrollment refused (${res.status}): ${res.body.toString('utf8').trim()}`, res.status);
  const answer = JSON.parse(res.body.toString('utf8')) as { device: string; credential: string; status?: string };
  // A device enrolled with a token that needs approval reaches nothing until approved: say so (section 22).
  if (answer.status === 'pending')
    opts.log?.(
      `enrolled as ${answer.device}; waiting for an administrator's approval (until then it may only report its facts)`,
    );
  const state: DeviceState = {
    server: link.server,
    controlUrl,
    pins: link.pins,
    device: answer.device,
    credential: answer.credential,
    ...(link.maxPrivacy === undefined ? {} : { maxPrivacy: link.maxPrivacy }),
    ...(facts && { facts: { ...facts } }),
  };
  // A link with one pin, or made before a rotation: the server's set replaces the link's at once.
  await updatePins(state, res, { ...opts, saveState: undefined });
  // The set the link's replaced is of no use to a device that never connected through it.
  delete state.retiredPins;
  return state;
}

/**
 * The receipt of a redacted or minimal upload (issue 14): what the rules replaced, per rule,
 * counted on the original bytes by the same code that replaced it; never content.
 */
export function receiptFor(bytes: Uint8Array, privacy: PrivacyLevel): string | undefined {
  if (privacy === 'full') return undefined;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return formatReceipt({ client: version, rules: rulesDigest(), counts: countFindings(text, privacy) });
}

/** Statuses worth another try: the server or a proxy was briefly unavailable. */
export const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);
/** Backoff of 0.25, 0.5, 1, ... 16 s: a busy or restarting server has about half a minute. */
const ATTEMPTS = 8;
/** The longest wait a server's Retry-After may ask for between two attempts. */
export const MAX_RETRY_AFTER_S = 60;

export interface UploadInput {
  bytes: Uint8Array;
  contentType: string;
  privacy: PrivacyLevel;
  id?: string | undefined;
  /** The collection request this run answers (X-Collection, docs/contract.md section 15). */
  collection?: string | undefined;
}

/** Applies the privacy level, then uploads with backoff; a retry with the same id is idempotent (200). */
export async function uploadRun(
  state: DeviceState,
  input: UploadInput,
  opts: ClientOptions = {},
): Promise<{ id: string; status: number }> {
  // The server would refuse it (403); the device says why before anything leaves it.
  const ceiling = state.maxPrivacy ?? 'full';
  if (!withinCeiling(input.privacy, ceiling))
    throw new DeviceError(
      `privacy level ${input.privacy} is above this device's ceiling (${ceiling}): upload at ${ceiling} or a more private level`,
    );
  const { body, contentType } = applyPrivacy(input.bytes, input.contentType, input.privacy);
  const receipt = receiptFor(input.bytes, input.privacy);
  // The default id is derived from what is sent, so re-running the same upload is a harmless retry.
  const id = input.id ?? `run-${createHash('sha256').update(body).digest('hex').slice(0, 24)}`;
  // `.` and `..` match the id pattern but are dot-segments every URL parser removes (RFC 3986
  // section 5.2.4): such an upload could never reach /v1/runs/{id}.
  if (!isAddressableRunId(id)) {
    throw new DeviceError('run id must match [A-Za-z0-9._-]{1,128} and be neither "." nor ".."');
  }
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    let failure: string;
    let retryAfterMs = 0;
    try {
      const res = await controlRequest(
        state,
        {
          url: new URL(`/v1/runs/${encodeURIComponent(id)}`, state.controlUrl),
          method: 'PUT',
          headers: {
            authorization: `Bearer ${state.credential}`,
            'x-privacy-level': input.privacy,
            'content-type': contentType,
            ...(receipt === undefined ? {} : { [RECEIPT_HEADER.toLowerCase()]: receipt }),
            ...(input.collection === undefined ? {} : { 'x-collection': input.collection }),
          },
          body,
        },
        opts,
      );
      if (res.status === 201 || res.status === 200) return { id, status: res.status };
      const message = res.body.toString('utf8').trim();
      if (res.status === 401)
        throw new DeviceError(`upload refused: this device's credential is unknown or revoked (${message})`, 401);
      // With X-Collection, a 409 may also say the request is no longer open: the server's words tell which.
      if (res.status === 409)
        throw new DeviceError(
          input.collection === undefined
            ? `upload refused: a different run with id ${id} is already stored`
            : `upload refused (409): ${message}`,
          409,
        );
      if (!RETRYABLE.has(res.status)) throw new DeviceError(`upload refused (${res.status}): ${message}`, res.status);
      failure = `server answered ${res.status}`;
      retryAfterMs = Math.min(res.retryAfter ?? 0, MAX_RETRY_AFTER_S) * 1000;
    } catch (err) {
      if (err instanceof DeviceError || (err as { code?: string }).code === 'PIN_MISMATCH' || opts.signal?.aborted)
        throw err;
      failure = (err as Error).message;
    }
    if (attempt >= ATTEMPTS) throw new DeviceError(`upload failed after ${ATTEMPTS} attempts: ${failure}`);
    const delay = Math.max(retryAfterMs, 250 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
    opts.log?.(`upload attempt ${attempt} failed (${failure}); retrying in ${Math.round(delay)} ms`);
    await sleep(delay);
  }
}
