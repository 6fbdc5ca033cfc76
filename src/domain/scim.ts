/**
 * Provisioning from the identity provider (docs/contract.md section 20): the SCIM users and groups
 * Paddock keeps, as the store hands them over. A SCIM user becomes an account when someone signs
 * in through OIDC with its userName (PADDOCK_SCIM_USER_CLAIM); a SCIM group's members are the
 * accounts in `group:<displayName>` (section 19).
 */
import { randomUUID } from 'node:crypto';

/** A resource's attributes as the provider gave them, read against the schema (scim/attributes.ts). */
export type ScimAttributes = Record<string, unknown>;

export interface ScimUser {
  /** Paddock's id for it (a UUID): `value` in a group's members, the last segment of its location. */
  id: string;
  userName: string;
  externalId: string | null;
  displayName: string | null;
  active: boolean;
  /** Every attribute kept, userName and active included, as the resource shows them. */
  attributes: ScimAttributes;
  /** The account it is linked to, once that account signed in (null: provisioned, not signed in). */
  subject: string | null;
  createdAt: number;
  updatedAt: number;
  /** Grows by one at each change: the resource's ETag (RFC 7644 section 3.14). */
  version: number;
}

export interface ScimMember {
  id: string;
  userName: string;
  displayName: string | null;
}

export interface ScimGroup {
  id: string;
  displayName: string;
  externalId: string | null;
  createdAt: number;
  updatedAt: number;
  version: number;
  /** The members, when asked for (a list asked with `excludedAttributes=members` reads none). */
  members?: ScimMember[];
}

/** The equalities a list's filter asks for, each on an indexed column. */
export interface ScimUserFilter {
  id?: string;
  userName?: string;
  externalId?: string;
  displayName?: string;
}

export interface ScimGroupFilter {
  id?: string;
  displayName?: string;
  externalId?: string;
}

/** A page of a list (RFC 7644 section 3.4.2.4): `offset` is startIndex less one. */
export interface ScimPageRequest {
  offset: number;
  count: number;
}

export interface ScimPage<T> {
  total: number;
  items: T[];
}

/** What a write of a SCIM resource came to: `taken` (a uniqueness conflict) and `missed` change nothing. */
export type ScimWriteOutcome = 'done' | 'taken' | 'missed';

export function newScimId(): string {
  return randomUUID();
}

/** userName is unique whatever its case (RFC 7643 section 4.1.1): the store keys it so. */
export function userNameKey(userName: string): string {
  return userName.toLowerCase();
}

/** A SCIM id as Paddock hands them out; any other path segment names nothing. */
export const SCIM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An If-Match header (RFC 7644 section 3.14; RFC 9110 section 13.1.1): absent or `*` (undefined)
 * matches any version; a list of entity tags matches the versions they name (weak or strong);
 * anything else (null) matches none.
 */
export type IfMatch = readonly number[] | null | undefined;

export function readIfMatch(header: string | undefined): IfMatch {
  if (header === undefined || header.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const tag of header.split(',')) {
    const m = /^\s*(?:W\/)?"([0-9]{1,15})"\s*$/.exec(tag);
    if (!m) return null;
    versions.push(Number(m[1]));
  }
  return versions;
}

export function matches(ifMatch: IfMatch, version: number): boolean {
  return ifMatch === undefined || (ifMatch !== null && ifMatch.includes(version));
}

/** The 412 of a write whose If-Match names another version than the resource's. */
export function preconditionFailed(version: number): { status: 412; detail: string } {
  return { status: 412, detail: `the resource is at version W/"${version}", not the one If-Match names` };
}
