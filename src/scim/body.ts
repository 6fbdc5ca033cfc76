/**
 * A SCIM request's body (RFC 7644 section 3.1): `application/scim+json` or `application/json`, at
 * most SCIM_BODY_LIMIT bytes, at every body's minimum rate (http/body.ts), one JSON text that names
 * no member twice in one object. Each failure is a SCIM error: nothing is acted on until it passes.
 */
import type { Context } from 'hono';
import { BodyError, readBody } from '../http/body.ts';
import { repeatedName } from '../http/duplicate_keys.ts';
import { invalid, type ScimFailure } from '../domain/scim_failure.ts';

/** A group's full member list (Okta's PUT) fits: about 4,000 members of 60 bytes each. */
export const SCIM_BODY_LIMIT = 262_144;

const MEDIA_TYPE = /^application\/(scim\+)?json\s*(;\s*charset=utf-8\s*)?$/i;

export async function scimBody(c: Context): Promise<{ ok: true; body: unknown } | { ok: false; failure: ScimFailure }> {
  if (!MEDIA_TYPE.test(c.req.header('content-type') ?? ''))
    return { ok: false, failure: { status: 415, detail: 'the body must be application/scim+json' } };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readBody(c.req.raw, { limit: SCIM_BODY_LIMIT }));
  } catch (err) {
    const code = err instanceof BodyError ? err.code : undefined;
    if (code === 'too-large')
      return { ok: false, failure: { status: 413, detail: `the body must be at most ${SCIM_BODY_LIMIT} bytes` } };
    if (code === 'too-slow' || code === 'cut-short')
      return { ok: false, failure: { status: 408, detail: 'the body arrived too slowly or ended early' } };
    return { ok: false, failure: invalid('invalidSyntax', 'the body is not UTF-8 text') };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, failure: invalid('invalidSyntax', 'the body is not JSON') };
  }
  const twice = repeatedName(text);
  if (twice !== undefined)
    return { ok: false, failure: invalid('invalidSyntax', `${JSON.stringify(twice)} is given twice in one object`) };
  return { ok: true, body };
}
