/**
 * SCIM users (docs/contract.md section 20), acted by the scim token's account: created, replaced
 * (PUT), patched, deleted. A user's change is one guarded write at the version read (retried when
 * another writer came first); what follows from it comes after: `active` false, or deletion,
 * disables its account as section 14 says and, with PADDOCK_SCIM_HAND_OVER_TO, hands its devices
 * over (actions/accounts.ts, actions/owners.ts); `active` true enables it again.
 *
 * Each event's webhook note is written in the transaction of the user's change (docs/contract.md
 * section 13), with the fields the log and the audit trail hear; but a deactivation that hands
 * devices over counts them only afterwards, so its note is queued once they moved (each device's
 * own device.owner_changed is noted in its batch's transaction).
 */
import type { Actor } from '../domain/accounts.ts';
import { type IfMatch, matches, newScimId, preconditionFailed, type ScimUser } from '../domain/scim.ts';
import { readResource } from '../domain/scim_attributes.ts';
import { isFailure, type ScimFailure } from '../domain/scim_failure.ts';
import { applyPatch, readPatch } from '../domain/scim_patch.ts';
import { userFields } from '../domain/scim_resources.ts';
import { USER_SCHEMA } from '../domain/scim_schema.ts';
import { disableAccount, enableAccount } from './accounts.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note, type Note } from '../events/note.ts';

type Deps = ActionDeps;

/** What a SCIM user's deactivation needs to know of the server's settings. */
export interface LeavingSettings {
  /** The break-glass account's subject: never disabled. */
  breakGlass: string;
  /** PADDOCK_SCIM_HAND_OVER_TO: where a leaving user's devices go (unset: they stay). */
  handOverTo: string | undefined;
}

export type ScimUserOutcome = { ok: true; user: ScimUser } | { ok: false; failure: ScimFailure };

/** How often a change is tried again when another writer changed the user between read and write. */
const ATTEMPTS = 5;

const notFound = (id: string): ScimFailure => ({ status: 404, detail: `no user has the id ${id}` });
const taken = (userName: string): ScimFailure => ({
  status: 409,
  scimType: 'uniqueness',
  detail: `another user has the userName ${JSON.stringify(userName)} (in some case)`,
});

function who(actor: Actor, u: Pick<ScimUser, 'id' | 'userName' | 'subject'>) {
  return { ...actedBy(actor), user: u.id, userName: u.userName, ...(u.subject ? { subject: u.subject } : {}) };
}

export async function createScimUser(deps: Deps, actor: Actor, body: unknown): Promise<ScimUserOutcome> {
  const attrs = readResource(USER_SCHEMA, body);
  if (isFailure(attrs)) return { ok: false, failure: attrs };
  const fields = userFields(attrs);
  if (isFailure(fields)) return { ok: false, failure: fields };
  const now = deps.clock.now();
  const user: ScimUser = { id: newScimId(), ...fields, subject: null, createdAt: now, updatedAt: now, version: 1 };
  const created = { ...who(actor, user), active: user.active };
  if ((await deps.store.createScimUser(user, [note(EVENTS.scimUserCreated, created, now)])) !== 'done')
    return { ok: false, failure: taken(user.userName) };
  await deps.logger.emit(EVENTS.scimUserCreated, created);
  return { ok: true, user };
}

/** PUT: the user's attributes become the body's (RFC 7644 section 3.5.1). */
export async function replaceScimUser(
  deps: Deps,
  actor: Actor,
  input: { id: string; body: unknown; settings: LeavingSettings; ifMatch?: IfMatch },
): Promise<ScimUserOutcome> {
  const attrs = readResource(USER_SCHEMA, input.body);
  if (isFailure(attrs)) return { ok: false, failure: attrs };
  return changeUser(deps, actor, input, () => attrs);
}

/** PATCH: the operations applied in order to the user as stored; the first that fails fails all. */
export async function patchScimUser(
  deps: Deps,
  actor: Actor,
  input: { id: string; body: unknown; settings: LeavingSettings; ifMatch?: IfMatch },
): Promise<ScimUserOutcome> {
  const ops = readPatch(input.body);
  if (isFailure(ops)) return { ok: false, failure: ops };
  return changeUser(deps, actor, input, (user) => applyPatch(USER_SCHEMA, user.attributes, ops, user.id));
}

async function changeUser(
  deps: Deps,
  actor: Actor,
  { id, settings, ifMatch }: { id: string; settings: LeavingSettings; ifMatch?: IfMatch },
  change: (user: ScimUser) => ScimUser['attributes'] | ScimFailure,
): Promise<ScimUserOutcome> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await deps.store.scimUser(id);
    if (!before) return { ok: false, failure: notFound(id) };
    if (!matches(ifMatch, before.version)) return { ok: false, failure: preconditionFailed(before.version) };
    const attrs = change(before);
    if (isFailure(attrs)) return { ok: false, failure: attrs };
    const fields = userFields(attrs);
    if (isFailure(fields)) return { ok: false, failure: fields };
    const now = deps.clock.now();
    const after: ScimUser = { ...before, ...fields, updatedAt: now, version: before.version + 1 };
    const changed = changedNames(before.attributes, after.attributes);
    if (changed.length === 0) return { ok: true, user: before };
    const updated = { ...who(actor, after), changed: changed.join(',') };
    const leaving = before.active && !after.active ? leavingFields(actor, after, settings) : undefined;
    const notes = [note(EVENTS.scimUserUpdated, updated, now)];
    if (leaving?.handOver === false) notes.push(note(EVENTS.scimUserDeactivated, leaving.fields, now));
    if (!before.active && after.active) notes.push(note(EVENTS.scimUserReactivated, who(actor, after), now));
    const written = await deps.store.replaceScimUser(after, before.version, notes);
    if (written === 'taken') return { ok: false, failure: taken(after.userName) };
    if (written === 'missed') continue;
    await deps.logger.emit(EVENTS.scimUserUpdated, updated);
    if (leaving) await deactivated(deps, actor, after, settings, 'deactivated');
    if (!before.active && after.active) await reactivated(deps, actor, after);
    return { ok: true, user: after };
  }
  return { ok: false, failure: { status: 409, detail: 'the user kept changing under this request: try again' } };
}

export async function deleteScimUser(
  deps: Deps,
  actor: Actor,
  input: { id: string; settings: LeavingSettings; ifMatch?: IfMatch },
): Promise<{ ok: true } | { ok: false; failure: ScimFailure }> {
  const user = await deps.store.scimUser(input.id);
  if (user && !matches(input.ifMatch, user.version)) return { ok: false, failure: preconditionFailed(user.version) };
  const leaving = user && leavingFields(actor, user, input.settings);
  const notes: Note[] =
    leaving?.handOver === false ? [note(EVENTS.scimUserDeleted, leaving.fields, deps.clock.now())] : [];
  if (!user || (await deps.store.deleteScimUser(input.id, notes)) !== 'done')
    return { ok: false, failure: notFound(input.id) };
  await deactivated(deps, actor, user, input.settings, 'deleted');
  return { ok: true };
}

/**
 * The fields of a user's deactivation or deletion as known before its account is disabled: with
 * no device to hand over (never signed in, or no PADDOCK_SCIM_HAND_OVER_TO) they are final, and
 * its note goes with the user's change (`handOver` false).
 */
function leavingFields(actor: Actor, user: ScimUser, settings: LeavingSettings) {
  const handOver = user.subject !== null && settings.handOverTo !== undefined;
  return { handOver, fields: { ...who(actor, user), handed_over: 0 } };
}

/**
 * A user gone inactive or deleted: its account, once it signed in, is disabled (its sessions end on
 * every instance, its tokens and sign-in are refused) and its devices handed over when the setting
 * names where. Never signed in, it has neither: its sign-in will be refused.
 */
async function deactivated(
  deps: Deps,
  actor: Actor,
  user: ScimUser,
  settings: LeavingSettings,
  how: 'deactivated' | 'deleted',
): Promise<void> {
  let handedOver = 0;
  if (user.subject !== null) {
    const disabled = await disableAccount(deps, actor, {
      subject: user.subject,
      breakGlass: settings.breakGlass,
      handOverTo: settings.handOverTo,
    });
    if (disabled.ok) handedOver = disabled.handedOver;
  }
  const fields = {
    ...who(actor, user),
    handed_over: handedOver,
    ...(settings.handOverTo === undefined || user.subject === null ? {} : { to: settings.handOverTo }),
  };
  const event = how === 'deleted' ? EVENTS.scimUserDeleted : EVENTS.scimUserDeactivated;
  // Its note was written with the user's change unless devices were to be handed over (leavingFields).
  if (leavingFields(actor, user, settings).handOver) await deps.store.enqueue(note(event, fields, deps.clock.now()));
  if (how === 'deleted') await deps.logger.emit(EVENTS.scimUserDeleted, fields);
  else await deps.logger.emit(EVENTS.scimUserDeactivated, fields);
}

/** A user active again (its note went with the change): its account, once it signed in, enabled. */
async function reactivated(deps: Deps, actor: Actor, user: ScimUser): Promise<void> {
  if (user.subject !== null) await enableAccount(deps, actor, user.subject);
  await deps.logger.emit(EVENTS.scimUserReactivated, who(actor, user));
}

/** The attributes whose values differ, by name (the extension's under its URN). */
export function changedNames(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => JSON.stringify(before[n]) !== JSON.stringify(after[n])).sort();
}
