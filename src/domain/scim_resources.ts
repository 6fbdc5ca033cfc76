/**
 * Users and Groups as SCIM shows them (RFC 7643 sections 3.1, 4.1 and 4.2), and the rules a
 * resource must meet before it is stored: userName present and printable, a group's displayName a
 * group name as section 19 allows it (it becomes the owner `group:<displayName>`), members by id.
 */
import type { Attrs } from './scim_attributes.ts';
import { invalid, type ScimFailure } from './scim_failure.ts';
import { SCHEMA } from './scim_schema.ts';
import { isGroupName } from './owners.ts';
import { SCIM_ID, type ScimGroup, type ScimUser } from './scim.ts';

/** userName and displayName: 1 to 256 characters, none a control character. */
const NAME = /^[^\p{Cc}\p{Cs}]{1,256}$/u;

const iso = (ms: number) => new Date(ms).toISOString();

/** The resource's version as an ETag (RFC 7644 section 3.14): weak, it names a version, not bytes. */
export function etag(version: number): string {
  return `W/"${version}"`;
}

function meta(
  resourceType: 'User' | 'Group',
  location: string,
  r: { createdAt: number; updatedAt: number; version: number },
) {
  return {
    resourceType,
    created: iso(r.createdAt),
    lastModified: iso(r.updatedAt),
    location,
    version: etag(r.version),
  };
}

export function userLocation(base: string, id: string): string {
  return `${base}/scim/v2/Users/${id}`;
}

export function groupLocation(base: string, id: string): string {
  return `${base}/scim/v2/Groups/${id}`;
}

export function userJson(base: string, u: ScimUser) {
  // userName, externalId and active are shown from their columns, first, as RFC 7643's examples order them.
  const rest = Object.fromEntries(
    Object.entries(u.attributes).filter(([name]) => name !== 'userName' && name !== 'active' && name !== 'externalId'),
  );
  return {
    schemas: SCHEMA.enterprise in u.attributes ? [SCHEMA.user, SCHEMA.enterprise] : [SCHEMA.user],
    id: u.id,
    ...(u.externalId === null ? {} : { externalId: u.externalId }),
    userName: u.userName,
    ...rest,
    active: u.active,
    meta: meta('User', userLocation(base, u.id), u),
  };
}

export function groupJson(base: string, g: ScimGroup) {
  return {
    schemas: [SCHEMA.group],
    id: g.id,
    ...(g.externalId === null ? {} : { externalId: g.externalId }),
    displayName: g.displayName,
    ...(g.members === undefined
      ? {}
      : {
          members: g.members.map((m) => ({
            value: m.id,
            display: m.displayName ?? m.userName,
            $ref: userLocation(base, m.id),
            type: 'User',
          })),
        }),
    meta: meta('Group', groupLocation(base, g.id), g),
  };
}

/** A user's columns from its attributes, or the failure that keeps it from being stored. */
export function userFields(
  attrs: Attrs,
): Pick<ScimUser, 'userName' | 'externalId' | 'displayName' | 'active' | 'attributes'> | ScimFailure {
  const { userName, displayName, externalId } = attrs;
  if (typeof userName !== 'string' || userName.trim() === '') return invalid('invalidValue', 'userName is required');
  if (!NAME.test(userName))
    return invalid('invalidValue', 'userName must be 1 to 256 characters, none a control character');
  if (displayName !== undefined && !NAME.test(displayName as string))
    return invalid('invalidValue', 'displayName must be 1 to 256 characters, none a control character');
  if (externalId !== undefined && !NAME.test(externalId as string))
    return invalid('invalidValue', 'externalId must be 1 to 256 characters, none a control character');
  // RFC 7643 section 4.1.1: active is the administrative status; a user given none is active.
  const active = attrs.active !== false;
  return {
    userName,
    externalId: (externalId as string | undefined) ?? null,
    displayName: (displayName as string | undefined) ?? null,
    active,
    attributes: { ...attrs, active },
  };
}

/** A group's columns and member ids from its attributes, or the failure that keeps it from being stored. */
export function groupFields(
  attrs: Attrs,
): { displayName: string; externalId: string | null; members: string[] } | ScimFailure {
  const { displayName, externalId } = attrs;
  if (typeof displayName !== 'string' || displayName === '') return invalid('invalidValue', 'displayName is required');
  if (!isGroupName(displayName))
    return invalid(
      'invalidValue',
      'displayName must be 1 to 128 characters, none a control character (it names group:<displayName>)',
    );
  if (externalId !== undefined && !NAME.test(externalId as string))
    return invalid('invalidValue', 'externalId must be 1 to 256 characters, none a control character');
  const members = new Set<string>();
  for (const m of (attrs.members as Attrs[] | undefined) ?? []) {
    if (typeof m.value !== 'string') return invalid('invalidValue', 'each of members needs a value: a user id');
    if (!SCIM_ID.test(m.value))
      return invalid('invalidValue', `members: no user has the id ${JSON.stringify(m.value)}`);
    members.add(m.value);
  }
  return { displayName, externalId: (externalId as string | undefined) ?? null, members: [...members] };
}

/** A group as PATCH and PUT work on it: its attributes, members by id. */
export function groupAttributes(g: ScimGroup): Attrs {
  return {
    displayName: g.displayName,
    ...(g.externalId === null ? {} : { externalId: g.externalId }),
    ...(g.members && g.members.length > 0
      ? {
          members: g.members
            .map((m) => m.id)
            .sort()
            .map((value) => ({ value })),
        }
      : {}),
  };
}
