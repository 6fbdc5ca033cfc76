/**
 * SCIM's answers (RFC 7644 sections 3.1 and 3.12): `application/scim+json`, and errors as its Error
 * message, `status` a string, `scimType` for the 400s and 409s that have one, `detail` saying what
 * is wrong (domain/scim_failure.ts).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ScimFailure } from '../domain/scim_failure.ts';
import { SCHEMA } from '../domain/scim_schema.ts';

export const SCIM_MEDIA_TYPE = 'application/scim+json';

/** A SCIM resource or message as the answer. */
export function scimJson(c: Context, body: unknown, status: ContentfulStatusCode = 200): Response {
  c.header('Cache-Control', 'no-store');
  return c.body(JSON.stringify(body), status, { 'Content-Type': SCIM_MEDIA_TYPE });
}

export function scimError(c: Context, failure: ScimFailure): Response {
  return scimJson(
    c,
    {
      schemas: [SCHEMA.error],
      status: String(failure.status),
      ...(failure.scimType === undefined ? {} : { scimType: failure.scimType }),
      detail: failure.detail,
    },
    failure.status,
  );
}
