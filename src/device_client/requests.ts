/**
 * The device's side of collection requests (docs/contract.md section 15): asking for its open
 * requests, held up to `wait` seconds until one arrives, and declining one. Both over the pinned
 * connection only; neither retries (the watch loop does, with its own backoff).
 */
import { REQUEST_ID } from '../domain/collections.ts';
import { isPrivacyLevel, type PrivacyLevel } from '../domain/privacy.ts';
import { type ClientOptions, DeviceError, RETRYABLE } from './client.ts';
import { controlRequest } from './control_request.ts';
import type { PinnedResponse } from './pinned_request.ts';
import type { DeviceState } from './state.ts';

/** A request as the device sees it: what is asked, at which level, and why. */
export interface CollectionRequest {
  id: string;
  privacy: PrivacyLevel;
  reason: string;
  createdAt: string;
  expiresAt: string;
}

/** Time beyond the wait for the server to answer a held request (a slow network, a busy server). */
const ANSWER_MARGIN_MS = 15_000;

/** GET /v1/requests?wait=: the open requests, oldest first; an empty list when the wait passed. */
export async function fetchRequests(
  state: DeviceState,
  waitS: number,
  opts: ClientOptions = {},
): Promise<CollectionRequest[]> {
  const url = new URL('/v1/requests', state.controlUrl);
  url.searchParams.set('wait', String(waitS));
  const res = await controlRequest(
    state,
    {
      url,
      method: 'GET',
      headers: { authorization: `Bearer ${state.credential}`, accept: 'application/json' },
      // The server holds the answer up to the wait: the timeout must outlast it.
      timeoutMs: waitS * 1000 + ANSWER_MARGIN_MS,
    },
    opts,
  );
  if (res.status !== 200) throw refusal('asking for requests', res);
  return parseRequests(res.body);
}

/** How a decline ended: done, or the request was no longer open to decline (answered, expired, cancelled). */
export type DeclineOutcome = 'declined' | 'not-open';

/**
 * POST /v1/requests/{id}/decline with the reason (at most 200 characters, cut here if longer) and,
 * for a command that failed, the end of its standard error (stderr_tail.ts; none when empty).
 */
export async function declineRequest(
  state: DeviceState,
  id: string,
  reason: string,
  opts: ClientOptions = {},
  stderr = '',
): Promise<DeclineOutcome> {
  const res = await controlRequest(
    state,
    {
      url: new URL(`/v1/requests/${encodeURIComponent(id)}/decline`, state.controlUrl),
      method: 'POST',
      headers: { authorization: `Bearer ${state.credential}`, 'content-type': 'application/json' },
      body: new TextEncoder().encode(
        JSON.stringify({ reason: declineReason(reason), ...(stderr === '' ? {} : { stderr }) }),
      ),
    },
    opts,
  );
  if (res.status === 204) return 'declined';
  if (res.status === 404 || res.status === 409) return 'not-open';
  throw refusal(`declining ${id}`, res);
}

/** At most 200 characters, none of them a control character (the server's DECLINE_REASON). */
function declineReason(text: string): string {
  return [...text.replace(/[\0-\x1f\x7f-\x9f]+/g, ' ')].slice(0, 200).join('');
}

/** A DeviceError for an answer other than the one hoped for; the status says whether to try again. */
function refusal(what: string, res: PinnedResponse): DeviceError {
  const message = res.body.toString('utf8').trim();
  if (res.status === 401)
    return new DeviceError(`${what} refused: this device's credential is unknown or revoked (${message})`, 401);
  const retry = RETRYABLE.has(res.status) ? ' (will try again)' : '';
  return new DeviceError(`${what}: server answered ${res.status}${retry}: ${message}`, res.status, res.retryAfter);
}

/** The answer's requests, each checked: an id, a level or a reason of another shape is the server's mistake. */
function parseRequests(body: Buffer): CollectionRequest[] {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DeviceError('asking for requests: the answer is not JSON');
  }
  const list = (doc as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(list)) throw new DeviceError('asking for requests: the answer has no "requests" list');
  return list.map((item: unknown) => {
    const r = item as Record<string, unknown> | null;
    const { id, privacy, reason, created_at: createdAt, expires_at: expiresAt } = r ?? {};
    if (
      typeof id !== 'string' ||
      !REQUEST_ID.test(id) ||
      !isPrivacyLevel(privacy) ||
      typeof reason !== 'string' ||
      typeof createdAt !== 'string' ||
      typeof expiresAt !== 'string'
    )
      throw new DeviceError(
        `asking for requests: a request of an unexpected shape: ${JSON.stringify(item).slice(0, 200)}`,
      );
    return { id, privacy, reason, createdAt, expiresAt };
  });
}
