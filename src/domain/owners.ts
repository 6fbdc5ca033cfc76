/**
 * Owners (docs/contract.md sections 4 and 19): a device belongs to an account's subject or to a
 * group, `group:<name>`, the name exactly as the identity provider spells it. This is the one
 * place the rule is written: every door that takes an owner (mint, hand over, filters) parses it here.
 */
import { SUBJECT } from './ids.ts';

/** What a group owner starts with; the rest is the group's name. */
export const GROUP_PREFIX = 'group:';

/** The longest group name kept (docs/contract.md section 19). */
export const GROUP_NAME_MAX = 128;

/**
 * A group's name: 1 to 128 characters (code points), none a control character (C0, DEL, C1). A
 * lone surrogate is refused too: it is no character, and PostgreSQL could not store it.
 */
export const GROUP_NAME = new RegExp(`^[^\\p{Cc}\\p{Cs}]{1,${GROUP_NAME_MAX}}$`, 'u');

/**
 * The most groups an account keeps (docs/contract.md section 19): past that, a sign-in keeps the
 * first ones in the claim's order (oidc/groups.ts), and the store refuses more.
 */
export const MAX_ACCOUNT_GROUPS = 256;

/** The plain message a bad owner answers with, wherever an owner is given. */
export const OWNER_RULE =
  'owner must be an account subject such as local:admin or oidc:<sub>, or group:<name> (1 to 128 characters, no control character)';

/** Whether `name` is a group's name as section 19 allows it. */
export function isGroupName(name: string): boolean {
  return GROUP_NAME.test(name);
}

/** The owner standing for a group. A name that is not one is the caller's mistake. */
export function groupOwner(name: string): string {
  if (!isGroupName(name)) throw new TypeError(`groupOwner: not a group name: ${JSON.stringify(name)}`);
  return `${GROUP_PREFIX}${name}`;
}

/** Whether an owner is a group's (as opposed to an account's subject). */
export function isGroupOwner(owner: string): boolean {
  return owner.startsWith(GROUP_PREFIX);
}

/** The group's name of a group owner, or undefined for an account's subject. */
export function groupOfOwner(owner: string): string | undefined {
  return isGroupOwner(owner) ? owner.slice(GROUP_PREFIX.length) : undefined;
}

export type ParsedOwner = { ok: true; owner: string } | { ok: false; message: string };

/**
 * An owner as given (form field, JSON, CLI flag): a subject (`local:…`, `oidc:…`) or a well-formed
 * `group:<name>`; otherwise the message that names what is wrong with it.
 */
export function parseOwner(text: string): ParsedOwner {
  // Named in the message as JSON, so that a control character shows; a long one cut short.
  const named = JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
  if (isGroupOwner(text)) {
    const name = text.slice(GROUP_PREFIX.length);
    if (name.length === 0) return { ok: false, message: `${named}: a group owner needs a name after group:` };
    if ([...name].length > GROUP_NAME_MAX)
      return { ok: false, message: `${named}: a group's name is at most ${GROUP_NAME_MAX} characters` };
    if (!isGroupName(name)) return { ok: false, message: `${named}: a group's name holds no control character` };
    return { ok: true, owner: text };
  }
  if (SUBJECT.test(text)) return { ok: true, owner: text };
  return { ok: false, message: `${named}: neither an account subject (local:… or oidc:…) nor group:<name>` };
}

/** Whether `text` is an owner (parseOwner's verdict without the message). */
export function isOwner(text: string): boolean {
  return parseOwner(text).ok;
}

/**
 * The owners whose devices a non-admin account reaches (docs/contract.md section 19): its subject,
 * then each of its groups as an owner.
 */
export function ownersOf(viewer: { subject: string; groups?: readonly string[] }): string[] {
  return [viewer.subject, ...(viewer.groups ?? []).map((g) => `${GROUP_PREFIX}${g}`)];
}
