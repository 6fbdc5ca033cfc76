/** The shapes of answer a handler gives: a page, a redirect, a short plain text. Failures: failures.ts. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Html } from '../views/html.ts';

/** A one-line plain-text answer that is not a failure (such as the control API's `stored`). */
export function plainText(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.text(`${message}\n`, status);
}

const HTML = { 'Content-Type': 'text/html; charset=UTF-8' } as const;

/**
 * A page, encoded once: the adapter writes the bytes and takes their length as it is, where a
 * string is measured (Buffer.byteLength) and then encoded again into the socket.
 */
export function page(c: Context, body: Html | string, status: ContentfulStatusCode = 200): Response {
  return c.body(Buffer.from(typeof body === 'string' ? body : body.value), status, HTML);
}

export function seeOther(c: Context, location: string): Response {
  return c.redirect(location, 303);
}
