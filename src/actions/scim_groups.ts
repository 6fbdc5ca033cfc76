/**
 * SCIM groups (docs/contract.md sections 19 and 20), acted by the scim token's account. A group's
 * members are the accounts in `group:<displayName>`: the store writes each linked member's groups
 * again in the change's transaction, and a rename takes the group's devices, runs and enrollment
 * tokens to the new name there too, and the change's webhook note (docs/contract.md section 13). A
 * member that names no user is an invalidValue, nothing changed.
 */
import type { Actor } from '../domain/accounts.ts';
import { groupOwner } from '../domain/owners.ts';
import { type IfMatch, matches, newScimId, preconditionFailed, type ScimGroup } from '../domain/scim.ts';
import { type Attrs, readResource } from '../domain/scim_attributes.ts';
import { invalid, isFailure, type ScimFailure } from '../domain/scim_failure.ts';
import { applyPatch, readPatch } from '../domain/scim_patch.ts';
import { groupAttributes, groupFields } from '../domain/scim_resources.ts';
import { GROUP_SCHEMA } from '../domain/scim_schema.ts';
import { changedNames } from './scim_users.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';

type Deps = ActionDeps;

export type ScimGroupOutcome = { ok: true; group: ScimGroup } | { ok: false; failure: ScimFailure };

const ATTEMPTS = 5;

const notFound = (id: string): ScimFailure => ({ status: 404, detail: `no group has the id ${id}` });
const taken = (name: string): ScimFailure => ({
  status: 409,
  scimType: 'uniqueness',
  detail: `another group has the displayName ${JSON.stringify(name)}`,
});

function about(actor: Actor, g: Pick<ScimGroup, 'id' | 'displayName'>) {
  return { ...actedBy(actor), group: g.id, owner: groupOwner(g.displayName) };
}

/** The ids among `ids` that name no user, as the failure that refuses them. */
async function missingMembers(deps: Deps, ids: readonly string[]): Promise<ScimFailure | undefined> {
  const missing = await deps.store.missingScimUsers(ids);
  return missing.length === 0
    ? undefined
    : invalid(
        'invalidValue',
        `members: no user has the id ${missing
          .slice(0, 5)
          .map((m) => JSON.stringify(m))
          .join(', ')}`,
      );
}

export async function createScimGroup(deps: Deps, actor: Actor, body: unknown): Promise<ScimGroupOutcome> {
  const attrs = readResource(GROUP_SCHEMA, body);
  if (isFailure(attrs)) return { ok: false, failure: attrs };
  const fields = groupFields(attrs);
  if (isFailure(fields)) return { ok: false, failure: fields };
  const missing = await missingMembers(deps, fields.members);
  if (missing) return { ok: false, failure: missing };
  const now = deps.clock.now();
  const group = { id: newScimId(), ...fields, createdAt: now };
  const created = { ...about(actor, group), members: fields.members.length };
  if ((await deps.store.createScimGroup(group, [note(EVENTS.scimGroupCreated, created, now)])) !== 'done')
    return { ok: false, failure: taken(fields.displayName) };
  await deps.logger.emit(EVENTS.scimGroupCreated, created);
  return {
    ok: true,
    group: (await deps.store.scimGroup(group.id, true)) ?? { ...group, members: [], updatedAt: now, version: 1 },
  };
}

export async function replaceScimGroup(
  deps: Deps,
  actor: Actor,
  input: { id: string; body: unknown; ifMatch?: IfMatch },
): Promise<ScimGroupOutcome> {
  const attrs = readResource(GROUP_SCHEMA, input.body);
  if (isFailure(attrs)) return { ok: false, failure: attrs };
  return changeGroup(deps, actor, input, () => attrs);
}

export async function patchScimGroup(
  deps: Deps,
  actor: Actor,
  input: { id: string; body: unknown; ifMatch?: IfMatch },
): Promise<ScimGroupOutcome> {
  const ops = readPatch(input.body);
  if (isFailure(ops)) return { ok: false, failure: ops };
  return changeGroup(deps, actor, input, (attrs, id) => applyPatch(GROUP_SCHEMA, attrs, ops, id));
}

async function changeGroup(
  deps: Deps,
  actor: Actor,
  { id, ifMatch }: { id: string; ifMatch?: IfMatch },
  change: (attrs: Attrs, id: string) => Attrs | ScimFailure,
): Promise<ScimGroupOutcome> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await deps.store.scimGroup(id, true);
    if (!before) return { ok: false, failure: notFound(id) };
    if (!matches(ifMatch, before.version)) return { ok: false, failure: preconditionFailed(before.version) };
    const beforeAttrs = groupAttributes(before);
    const attrs = change(beforeAttrs, id);
    if (isFailure(attrs)) return { ok: false, failure: attrs };
    const fields = groupFields(attrs);
    if (isFailure(fields)) return { ok: false, failure: fields };
    const had = new Set((before.members ?? []).map((m) => m.id));
    const now = new Set(fields.members);
    const added = fields.members.filter((m) => !had.has(m));
    const removed = [...had].filter((m) => !now.has(m));
    const missing = await missingMembers(deps, added);
    if (missing) return { ok: false, failure: missing };
    const changed = changedNames(beforeAttrs, {
      ...groupAttributes({ ...before, ...fields, members: [] }),
      ...(fields.members.length > 0 ? { members: [...fields.members].sort().map((value) => ({ value })) } : {}),
    });
    if (changed.length === 0) return { ok: true, group: before };
    const renamed = before.displayName !== fields.displayName;
    const at = deps.clock.now();
    const updated = {
      ...about(actor, { id, displayName: fields.displayName }),
      changed: changed.join(','),
      added: added.length,
      removed: removed.length,
      ...(renamed ? { renamed_from: groupOwner(before.displayName) } : {}),
    };
    const written = await deps.store.replaceScimGroup(
      {
        id,
        displayName: fields.displayName,
        externalId: fields.externalId,
        updatedAt: at,
        ...(renamed ? { renamedFrom: before.displayName } : {}),
        added,
        removed,
      },
      before.version,
      [note(EVENTS.scimGroupUpdated, updated, at)],
    );
    if (written === 'taken') return { ok: false, failure: taken(fields.displayName) };
    if (written === 'missed') continue;
    await deps.logger.emit(EVENTS.scimGroupUpdated, updated);
    return { ok: true, group: (await deps.store.scimGroup(id, true)) ?? before };
  }
  return { ok: false, failure: { status: 409, detail: 'the group kept changing under this request: try again' } };
}

export async function deleteScimGroup(
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch?: IfMatch,
): Promise<{ ok: true } | { ok: false; failure: ScimFailure }> {
  const group = await deps.store.scimGroup(id, false);
  if (group && !matches(ifMatch, group.version)) return { ok: false, failure: preconditionFailed(group.version) };
  if (!group) return { ok: false, failure: notFound(id) };
  const deleted = about(actor, group);
  if ((await deps.store.deleteScimGroup(id, [note(EVENTS.scimGroupDeleted, deleted, deps.clock.now())])) !== 'done')
    return { ok: false, failure: notFound(id) };
  await deps.logger.emit(EVENTS.scimGroupDeleted, deleted);
  return { ok: true };
}
