/**
 * The break-glass password changed on the server (`paddock set-admin-password`, or a new
 * PADDOCK_ADMIN_PASSWORD at start): the hash is stored and every session of the account ends, so
 * one started with the old password does not outlive it (ASVS 5.0 V7.4.3). Audited as
 * `password.changed` by `system`.
 */
import { hashPassword, verifyPassword } from '../crypto/password.ts';
import { EVENTS } from '../events/catalogue.ts';
import type { ActionDeps } from './deps.ts';

type PasswordStore = 'passwordHash' | 'setPasswordHash' | 'endSessionsOf';

/**
 * Stores `password` for `username`; false, and nothing changed, when it is the password already
 * stored. A first password (none stored) is no change of credential: nothing ends, nothing is audited.
 */
export async function changeAdminPassword(
  deps: ActionDeps<PasswordStore>,
  username: string,
  password: string,
): Promise<boolean> {
  const stored = await deps.store.passwordHash(username);
  if (stored !== undefined && (await verifyPassword(password, stored))) return false;
  await deps.store.setPasswordHash(username, await hashPassword(password));
  if (stored === undefined) return true;
  const subject = `local:${username}`;
  const sessions = await deps.store.endSessionsOf(subject, deps.clock.now());
  await deps.logger.emit(EVENTS.passwordChanged, { account: 'system', subject, sessions });
  return true;
}
