/** Request bodies read with a hard cap: never buffer more than the limit allows. */

export class BodyTooLarge extends Error {
  constructor(limit: number) {
    super(`body larger than ${limit} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/** The bytes held would pass the memory budget (a device's share: 429; the process's: 503); nothing is kept. */
export class OverBudget extends Error {
  constructor() {
    super('upload memory budget exhausted');
    this.name = 'OverBudget';
  }
}

/** The sender fell below the minimum transfer rate: the body is abandoned and the client told 408. */
export class TooSlow extends Error {
  constructor() {
    super('body sent more slowly than the minimum rate');
    this.name = 'TooSlow';
  }
}

export interface StreamedRead {
  /** Asked for each chunk's bytes before it is kept; false refuses it (OverBudget). */
  take(bytes: number): boolean;
  /** After `graceMs`, the body must keep arriving at `bytesPerSecond` on average, or TooSlow. */
  minRate: { graceMs: number; bytesPerSecond: number };
}

/** Reads the whole body, throwing BodyTooLarge as soon as it (or its Content-Length) exceeds `limit`. */
export async function readBody(req: Request, limit: number): Promise<Uint8Array> {
  const length = declaredLength(req);
  if (length !== undefined && length > limit) throw new BodyTooLarge(limit);
  if (length !== undefined) {
    // A declared length within the limit: Node's parser delivers exactly that many bytes, so the
    // adapter's direct read (no web stream) is bounded; the check below holds for any other Request.
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.byteLength > limit) throw new BodyTooLarge(limit);
    return bytes;
  }
  return readStream(req, limit);
}

/** The Content-Length, when present and well-formed. */
export function declaredLength(req: Request): number | undefined {
  const declared = req.headers.get('content-length');
  return declared !== null && /^[0-9]{1,15}$/.test(declared) ? Number(declared) : undefined;
}

/**
 * Reads the body chunk by chunk as it arrives: each chunk's bytes are taken from `read.take` before
 * it is kept (so memory is accounted for by what is really held, whatever the sender declared), and
 * a sender slower than `read.minRate` is cut off. Joins the chunks into one buffer at the end; with a
 * declared length the buffer is filled as the chunks come, so nothing is held twice.
 */
export async function readStream(req: Request, limit: number, read?: StreamedRead): Promise<Uint8Array> {
  const length = declaredLength(req);
  if (length !== undefined && length > limit) throw new BodyTooLarge(limit);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const into = length === undefined ? undefined : Buffer.allocUnsafe(length);
  const chunks: Uint8Array[] = [];
  const started = Date.now();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await nextChunk(reader, read && deadline(started, size, read.minRate));
      if (done) break;
      size += value.byteLength;
      if (size > limit || (length !== undefined && size > length)) throw new BodyTooLarge(limit);
      if (read && !read.take(value.byteLength)) throw new OverBudget();
      if (into) into.set(value, size - value.byteLength);
      else chunks.push(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
  }
  // Node ends a body short of its declared length with an error; any other stream is held to it too.
  if (into) {
    if (size !== into.byteLength) throw new Error('body ended before its declared length');
    return into;
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  // The joined copy and the chunks coexist only for the synchronous copy itself, so one body at a
  // time in the whole process: at most one run's size above the budget, for microseconds.
  return Buffer.concat(chunks, size);
}

/** When the next chunk must have come for the average rate since the grace period to hold. */
function deadline(started: number, size: number, rate: StreamedRead['minRate']): number {
  return started + rate.graceMs + (size / rate.bytesPerSecond) * 1000;
}

function nextChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  by: number | undefined,
): ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> {
  if (by === undefined) return reader.read();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TooSlow()), Math.max(0, by - Date.now()));
  });
  return Promise.race([reader.read(), late]).finally(() => clearTimeout(timer));
}
