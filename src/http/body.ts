/** Request bodies read with a hard cap: never buffer more than the limit allows. */

export class BodyTooLarge extends Error {
  constructor(limit: number) {
    super(`body larger than ${limit} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/** Reads the whole body, throwing BodyTooLarge as soon as it (or its Content-Length) exceeds `limit`. */
export async function readBody(req: Request, limit: number): Promise<Uint8Array> {
  const declared = req.headers.get('content-length');
  const length = declared !== null && /^[0-9]+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > limit) throw new BodyTooLarge(limit);
  if (length !== undefined) {
    // A declared length within the limit: Node's parser delivers exactly that many bytes, so the
    // adapter's direct read (no web stream) is bounded; the check below holds for any other Request.
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.byteLength > limit) throw new BodyTooLarge(limit);
    return bytes;
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
}
