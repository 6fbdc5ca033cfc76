/**
 * SCIM's errors as values (RFC 7644 section 3.12): a status, the scimType of the 400s and 409s that
 * have one, and a detail saying what is wrong. The SCIM door (scim/errors.ts) shows them.
 */

/** The scimType values of RFC 7644 section 3.12 that Paddock answers with. */
export type ScimType =
  | 'invalidFilter'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'mutability'
  | 'uniqueness'
  | 'tooMany';

export interface ScimFailure {
  readonly status: 400 | 401 | 403 | 404 | 408 | 409 | 412 | 413 | 415 | 500 | 501;
  readonly scimType?: ScimType;
  readonly detail: string;
}

/** A 400 of `scimType` saying `detail`. */
export function invalid(scimType: ScimType, detail: string): ScimFailure {
  return { status: 400, scimType, detail };
}

export function isFailure(value: unknown): value is ScimFailure {
  return typeof value === 'object' && value !== null && 'status' in value && 'detail' in value;
}
