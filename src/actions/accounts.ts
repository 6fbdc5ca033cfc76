/**
 * Accounts and their sessions (docs/contract.md section 14): an administrator disables an account
 * (its sessions end, its tokens and its sign-in are refused) or enables it again; any account ends
 * its own sessions. Each change is an event of the catalogue, so the audit trail has it.
 */
import type { Actor } from '../domain/accounts.ts';
import { SESSION_PUBLIC_ID } from '../domain/sessions.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { parseOwner } from '../domain/owners.ts';
import { handOverAll } from './owners.ts';

export type DisableOutcome =
  | { ok: true; sessions: number; handedOver: number }
  | { ok: false; failure: 'accountNotFound' | 'breakGlassNotDisabled' }
  | { ok: false; failure: 'badOwner'; detail: string };

/**
 * Disables `subject`: first the flag (from then on its sessions, tokens and sign-ins are refused
 * on every instance), then its live sessions are ended one by one in the store, so the sessions
 * page and the account page show them ended. Disabling a disabled account changes nothing more.
 * With `handOverTo` (a subject or `group:<name>`, checked before anything changes), every device
 * it owns then moves there (docs/contract.md section 19), also when it was disabled already: a
 * device is never deleted because its owner left.
 */
export async function disableAccount(
  deps: ActionDeps<
    'accountState' | 'setAccountDisabled' | 'endSessionsOf' | 'devicesOwnedBy' | 'handOverDevices' | 'handOverPace'
  >,
  actor: Actor,
  input: { subject: string; breakGlass: string; handOverTo?: string | undefined },
): Promise<DisableOutcome> {
  if (input.subject === input.breakGlass) return { ok: false, failure: 'breakGlassNotDisabled' };
  const to = input.handOverTo === undefined ? undefined : parseOwner(input.handOverTo);
  if (to && !to.ok) return { ok: false, failure: 'badOwner', detail: `hand_over_to: ${to.message}` };
  if ((await deps.store.accountState(input.subject)) === undefined) return { ok: false, failure: 'accountNotFound' };
  const now = deps.clock.now();
  const changed = await deps.store.setAccountDisabled(input.subject, now);
  const sessions = await deps.store.endSessionsOf(input.subject, now);
  if (changed || sessions > 0)
    await deps.logger.emit(EVENTS.accountDisabled, { ...actedBy(actor), subject: input.subject, sessions });
  const handedOver = to ? await handOverAll(deps, actor, { from: input.subject, to: to.owner, reason: 'left' }) : 0;
  return { ok: true, sessions, handedOver };
}

/** Enables a disabled account; its ended sessions stay ended, its live tokens work again. */
export async function enableAccount(
  deps: ActionDeps<'accountState' | 'setAccountDisabled'>,
  actor: Actor,
  subject: string,
): Promise<{ ok: true } | { ok: false; failure: 'accountNotFound' }> {
  if ((await deps.store.accountState(subject)) === undefined) return { ok: false, failure: 'accountNotFound' };
  if (await deps.store.setAccountDisabled(subject, null))
    await deps.logger.emit(EVENTS.accountEnabled, { ...actedBy(actor), subject });
  return { ok: true };
}

/** Ends one of the actor's own live sessions by its public id; false when it has none such. */
export async function endSession(deps: ActionDeps<'endSessionOf'>, actor: Actor, publicId: string): Promise<boolean> {
  if (!SESSION_PUBLIC_ID.test(publicId)) return false;
  if (!(await deps.store.endSessionOf(actor.subject, publicId, deps.clock.now()))) return false;
  await deps.logger.emit(EVENTS.sessionEnded, { ...actedBy(actor), session: publicId });
  return true;
}

/** Ends every live session of the actor but `current` (the cookie id of the session asking); how many. */
export async function endOtherSessions(
  deps: ActionDeps<'endSessionsOf'>,
  actor: Actor,
  current: string,
): Promise<number> {
  const sessions = await deps.store.endSessionsOf(actor.subject, deps.clock.now(), current);
  await deps.logger.emit(EVENTS.sessionOthersEnded, { ...actedBy(actor), sessions });
  return sessions;
}
