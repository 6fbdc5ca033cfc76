/**
 * The one door through which a route reads a request body (issue 34): never more than its limit,
 * and never more slowly than the minimum rate, whatever its size or however it is framed. The
 * readers behind it are not exported, and test/unit/body_door.test.ts checks that nothing else in
 * src/ reads a body, so a route added later gets the same rule.
 */
import type { IncomingMessage } from 'node:http';
import { messageOf } from './node_message.ts';

/** Why a body was not read whole; each door answers these in its own shape. */
export type BodyFailure =
  /** Longer than the route's limit, or than its own Content-Length: 413. */
  | 'too-large'
  /** Its bytes would pass the memory budget (a device's share: 429; the process's: 503); nothing is kept. */
  | 'over-budget'
  /** Sent more slowly than the minimum rate: abandoned, and the client told 408. */
  | 'too-slow'
  /**
   * Ended before its declared length: the client closed its side (server/listen.ts), so it never
   * will be whole. Answered as the 408 it would otherwise have waited for, without the wait.
   */
  | 'cut-short'
  /** The stream failed (the connection was reset); nobody is left to answer. */
  | 'unreadable';

const MESSAGES: Record<BodyFailure, string> = {
  'too-large': 'body larger than its limit',
  'over-budget': 'upload memory budget exhausted',
  'too-slow': 'body sent more slowly than the minimum rate',
  'cut-short': 'body ended before its declared length',
  unreadable: 'body could not be read',
};

export class BodyError extends Error {
  readonly code: BodyFailure;
  constructor(code: BodyFailure, options?: ErrorOptions) {
    super(MESSAGES[code], options);
    this.name = 'BodyError';
    this.code = code;
  }
}

/** After `graceMs`, a body must keep arriving at `bytesPerSecond` on average since it was asked for. */
export interface MinRate {
  graceMs: number;
  bytesPerSecond: number;
}

/**
 * The rule for every body: after 10 s it must have come at 1 KiB/s on average, so a client that
 * sends part of one and stalls holds its connection (and a device its upload slot) for seconds,
 * not for Node's five-minute request timeout. A route may ask for a stricter rule (the run upload
 * asks for 8 KiB/s), never a looser one.
 */
export const MIN_BODY_RATE: Readonly<MinRate> = Object.freeze({ graceMs: 10_000, bytesPerSecond: 1024 });

export interface BodyRead {
  /** Bytes at most: a body (or Content-Length) above it is 'too-large' as soon as it is known. */
  limit: number;
  /** Asked for bytes before they are kept; false refuses them ('over-budget'). */
  take?: (bytes: number) => boolean;
  /** A stricter rule than MIN_BODY_RATE for this route. */
  minRate?: MinRate;
}

/** Reads the whole body under the route's limit and the minimum rate, or throws a BodyError. */
export async function readBody(req: Request, read: BodyRead): Promise<Uint8Array> {
  const rate = read.minRate ?? MIN_BODY_RATE;
  if (rate.graceMs > MIN_BODY_RATE.graceMs || rate.bytesPerSecond < MIN_BODY_RATE.bytesPerSecond)
    throw new TypeError('readBody: a route may ask for a stricter rate than MIN_BODY_RATE, not a looser one');
  const length = declaredLength(req);
  if (length !== undefined && length > read.limit) throw new BodyError('too-large');
  const started = Date.now();
  // A body of at most a second's worth at the rate is read whole (the adapter's direct read, without
  // a web stream: cheaper, and most bodies are this small) by the time the rule gives its last byte,
  // at most a second past the grace. A longer one is read chunk by chunk, each chunk held to the rule.
  if (length !== undefined && length <= rate.bytesPerSecond) return readWhole(req, length, started, rate, read.take);
  const message = messageOf(req);
  const rule: ChunkRule = { limit: read.limit, length, started, rate, take: read.take };
  return message ? readMessage(message, rule) : readChunks(req, rule);
}

/** The Content-Length, when present and well-formed. */
export function declaredLength(req: Request): number | undefined {
  const declared = req.headers.get('content-length');
  return declared !== null && /^[0-9]{1,15}$/.test(declared) ? Number(declared) : undefined;
}

async function readWhole(
  req: Request,
  length: number,
  started: number,
  rate: MinRate,
  take: BodyRead['take'],
): Promise<Uint8Array> {
  // The declared length is taken up front: Node's parser delivers no more than it.
  if (take && !take(length)) throw new BodyError('over-budget');
  const bytes = new Uint8Array(await within(req.arrayBuffer(), deadline(started, length, rate)));
  if (bytes.byteLength > length) throw new BodyError('too-large');
  if (bytes.byteLength < length) throw new BodyError('cut-short');
  return bytes;
}

/** What a body read chunk by chunk is held to: the route's limit, its declared length, its rate and budget. */
interface ChunkRule {
  limit: number;
  length: number | undefined;
  /** When the body was asked for, the start of its minimum rate. */
  started: number;
  rate: MinRate;
  take: BodyRead['take'];
}

/** Why the chunk of `bytes` that brings a body to `size` is refused, or undefined when it is kept. */
function refusal(rule: ChunkRule, size: number, bytes: number): BodyFailure | undefined {
  if (size > rule.limit || (rule.length !== undefined && size > rule.length)) return 'too-large';
  if (rule.take && !rule.take(bytes)) return 'over-budget';
  return undefined;
}

/**
 * The chunks as one body. The joined copy and the chunks coexist only for the synchronous copy
 * itself, so one body at a time in the whole process: at most one run's size above the budget, for
 * microseconds.
 */
function joined(chunks: Uint8Array[], size: number): Uint8Array {
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
}

/**
 * Reads the body chunk by chunk as it arrives: each chunk's bytes are taken from `take` before it
 * is kept, and only what arrived is held (docs/contract.md section 23: never the declared
 * Content-Length, which costs a sender nothing to declare and a stalled sender nothing to leave
 * unsent). Joins the chunks into one buffer at the end.
 */
async function readChunks(req: Request, rule: ChunkRule): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await within(reader.read(), deadline(rule.started, size, rule.rate));
      if (done) break;
      size += value.byteLength;
      const refused = refusal(rule, size, value.byteLength);
      if (refused) throw new BodyError(refused);
      chunks.push(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
  }
  if (rule.length !== undefined && size !== rule.length) throw new BodyError('cut-short');
  return joined(chunks, size);
}

/**
 * readChunks' rule, read from the Node message under the request (http/node_message.ts) rather than
 * through a web stream: the same limit, budget and minimum rate, chunk by chunk, holding only what
 * arrived. A body abandoned (too slow, too large, over budget) is left paused: the adapter drains
 * what follows after the answer and closes the connection within half a second.
 */
function readMessage(message: IncomingMessage, rule: ChunkRule): Promise<Uint8Array> {
  if (message.readableEnded || message.readableDidRead) return Promise.reject(new BodyError('unreadable'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const due = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => fail(new BodyError('too-slow')),
        Math.max(0, deadline(rule.started, size, rule.rate) - Date.now()),
      );
    };
    const settle = () => {
      clearTimeout(timer);
      message.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const fail = (err: BodyError) => {
      settle();
      message.pause();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      const refused = refusal(rule, size, chunk.byteLength);
      if (refused) return fail(new BodyError(refused));
      chunks.push(chunk);
      due();
    };
    const onEnd = () => {
      settle();
      if (rule.length !== undefined && size !== rule.length) return reject(new BodyError('cut-short'));
      resolve(joined(chunks, size));
    };
    const onError = (err: Error) => fail(new BodyError('unreadable', { cause: err }));
    const onClose = () => fail(new BodyError('unreadable'));
    message.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    due();
  });
}

/** When `size` bytes must have come for the average rate since the grace period to hold. */
function deadline(started: number, size: number, rate: MinRate): number {
  return started + rate.graceMs + (size / rate.bytesPerSecond) * 1000;
}

/** The read's result by `by`, else 'too-slow'; a failed read is 'unreadable' (its cause kept). */
function within<T>(read: Promise<T>, by: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyError('too-slow')), Math.max(0, by - Date.now()));
  });
  const settled = read.catch((err: unknown) => {
    throw err instanceof BodyError ? err : new BodyError('unreadable', { cause: err });
  });
  // A read abandoned for being late settles when the adapter closes the connection: nothing waits for it.
  settled.catch(() => undefined);
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
