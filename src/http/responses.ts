/** Plain-text failure bodies, as the specification's error table requires. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Html } from '../views/html.ts';

export function textError(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.text(`${message}\n`, status);
}

export function page(c: Context, body: Html, status: ContentfulStatusCode = 200): Response {
  return c.html(body.value, status);
}

export function seeOther(c: Context, location: string): Response {
  return c.redirect(location, 303);
}
