/**
 * The device routes' small JSON bodies other than uploads and enrollment (docs/contract.md sections
 * 15 and 16): at most 8 KiB, read through the one body door at its minimum rate, valid UTF-8, one
 * JSON object; an empty body is `{}`.
 */
import type { Context } from 'hono';
import { BodyError, readBody } from '../http/body.ts';
import { fail } from '../http/failures.ts';

export const DEVICE_JSON_LIMIT = 8 * 1024;

/** The body as an object, or the answer that refuses it (413, 408 or 400). */
export async function deviceJsonObject(c: Context): Promise<Record<string, unknown> | Response> {
  let body: unknown;
  try {
    const bytes = await readBody(c.req.raw, { limit: DEVICE_JSON_LIMIT });
    body = bytes.byteLength === 0 ? {} : JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    const code = err instanceof BodyError ? err.code : undefined;
    if (code === 'too-large') return fail(c, 'requestTooLarge');
    if (code === 'too-slow' || code === 'cut-short') return fail(c, 'requestTimeout');
    return fail(c, 'notJsonObject');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(c, 'notJsonObject');
  return body as Record<string, unknown>;
}
