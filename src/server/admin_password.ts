/**
 * The break-glass credential at start: PADDOCK_ADMIN_PASSWORD sets it (a new one ends the account's
 * sessions, audited; the same one changes nothing); otherwise a first start generates one.
 */
import { changeAdminPassword } from '../actions/admin_password.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config/config.ts';
import { generatePassword, hashPassword } from '../crypto/password.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';

export async function ensureAdminPassword(
  config: Config,
  deps: { store: Store; logger: Logger; clock: Clock },
  announce: (line: string) => void,
): Promise<void> {
  const { store } = deps;
  if (config.adminPassword !== undefined) {
    await changeAdminPassword(deps, config.adminUser, config.adminPassword);
    return;
  }
  if ((await store.passwordHash(config.adminUser)) !== undefined) return;
  const password = generatePassword();
  // Two instances starting together on one database: only the one whose hash landed announces.
  if (!(await store.createPasswordHash(config.adminUser, await hashPassword(password)))) return;
  announce(`paddock: generated break-glass password for "${config.adminUser}" (shown once): ${password}\n`);
}
