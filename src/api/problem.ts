/**
 * Errors of the JSON API as RFC 9457 problem details (`application/problem+json`): `title` is the
 * kind of problem, `detail` this occurrence, and `field` names the parameter at fault, so a
 * script can tell which of its inputs to fix.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export function problem(
  c: Context,
  status: ContentfulStatusCode,
  title: string,
  detail?: string,
  extra: Record<string, string> = {},
): Response {
  const body = { type: 'about:blank', title, status, ...(detail === undefined ? {} : { detail }), ...extra };
  return c.body(JSON.stringify(body), status, { 'Content-Type': 'application/problem+json' });
}
