/**
 * Personal access tokens (docs/contract.md section 11): any account creates its own, with its rights as
 * they are now, and revokes its own (an admin too: another account's token is unknown here). The
 * token is stored only as its hash and returned once; records name it by its public id.
 */
import { secretHash } from '../crypto/random.ts';
import {
  ACCESS_EXPIRES_IN_DEFAULT,
  ACCESS_EXPIRES_IN_MAX,
  ACCESS_EXPIRES_IN_MIN,
  ACCESS_TOKEN_NAME,
  ACCESS_TOKEN_PUBLIC_ID,
  isTokenScope,
  newAccessToken,
  TOKEN_SCOPE_DEFAULT,
  type AccessToken,
} from '../domain/access_tokens.ts';
import type { Actor } from '../domain/accounts.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';

export type CreateAccessTokenOutcome =
  { ok: true; token: string; record: AccessToken } | { ok: false; failure: BadAccessTokenField | 'scimTokenNotAdmin' };

/** A refused value of the create form's (or the API's body's) field. */
export type BadAccessTokenField = 'badAccessTokenName' | 'badAccessTokenExpiresIn' | 'badAccessTokenScope';

/** The field each refused value is, as the form and the API's JSON name it. */
export const ACCESS_TOKEN_FIELD: Readonly<Record<BadAccessTokenField, string>> = {
  badAccessTokenName: 'name',
  badAccessTokenExpiresIn: 'expires_in',
  badAccessTokenScope: 'scope',
};

/**
 * From the create form's fields as text: `name`, `expires_in` in seconds and `scope` (`read`,
 * `write` or, for an administrator, `scim`; empty or absent: the defaults). The record keeps the actor's admin flag for the record
 * only: the token acts with its account's flag as it is when used (docs/contract.md section 14).
 */
export async function createAccessToken(
  deps: ActionDeps<'createAccessToken'>,
  actor: Actor,
  input: { name: string; expiresIn: string; scope?: string | undefined },
): Promise<CreateAccessTokenOutcome> {
  const name = input.name.trim();
  if (!ACCESS_TOKEN_NAME.test(name)) return { ok: false, failure: 'badAccessTokenName' };
  const expiresIn = input.expiresIn.trim();
  const seconds =
    expiresIn === '' ? ACCESS_EXPIRES_IN_DEFAULT : /^[0-9]{1,10}$/.test(expiresIn) ? Number(expiresIn) : NaN;
  if (!(seconds >= ACCESS_EXPIRES_IN_MIN && seconds <= ACCESS_EXPIRES_IN_MAX))
    return { ok: false, failure: 'badAccessTokenExpiresIn' };
  const scope = input.scope === undefined || input.scope === '' ? TOKEN_SCOPE_DEFAULT : input.scope;
  if (!isTokenScope(scope)) return { ok: false, failure: 'badAccessTokenScope' };
  // docs/contract.md section 20: the identity provider's token acts for an administrator.
  if (scope === 'scim' && !actor.admin) return { ok: false, failure: 'scimTokenNotAdmin' };
  const token = newAccessToken();
  const now = deps.clock.now();
  const record = await deps.store.createAccessToken({
    hash: secretHash(token),
    subject: actor.subject,
    admin: actor.admin,
    scope,
    name,
    createdAt: now,
    expiresAt: now + seconds * 1000,
  });
  await deps.logger.emit(EVENTS.accessTokenCreated, {
    ...actedBy(actor),
    token: record.publicId,
    scope,
  });
  return { ok: true, token, record };
}

/** Revokes one of the actor's own unrevoked tokens; false when it has none with that public id. */
export async function revokeAccessToken(
  deps: ActionDeps<'revokeAccessToken'>,
  actor: Actor,
  id: string,
): Promise<boolean> {
  if (!ACCESS_TOKEN_PUBLIC_ID.test(id) || !(await deps.store.revokeAccessToken(actor.subject, id, deps.clock.now())))
    return false;
  await deps.logger.emit(EVENTS.accessTokenRevoked, { ...actedBy(actor), token: id });
  return true;
}
