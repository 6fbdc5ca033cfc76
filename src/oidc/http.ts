/** Bounded HTTP reads for the provider's endpoints. */
import { isLoopbackHost } from '../config/parse.ts';

/** Reads a response body as text, failing once it exceeds `cap` bytes (never buffering more). */
export async function readCapped(response: Response, cap: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw new Error(`response larger than ${cap} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
}

/** An endpoint URL from provider metadata: https, or http on a loopback host only. */
export function endpointUrl(value: unknown, field: string): URL {
  if (typeof value !== 'string') throw new Error(`${field} is missing`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${field} is not a URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new Error(`${field} must use https`);
  }
  return url;
}
