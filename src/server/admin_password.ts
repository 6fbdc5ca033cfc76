/** The break-glass credential at start: PADDOCK_ADMIN_PASSWORD sets it; otherwise a first start generates one. */
import type { Config } from '../config/config.ts';
import { generatePassword, hashPassword } from '../crypto/password.ts';
import type { Store } from '../store/store.ts';

export async function ensureAdminPassword(
  config: Config,
  store: Store,
  announce: (line: string) => void,
): Promise<void> {
  if (config.adminPassword !== undefined) {
    await store.setPasswordHash(config.adminUser, await hashPassword(config.adminPassword));
    return;
  }
  if ((await store.passwordHash(config.adminUser)) !== undefined) return;
  const password = generatePassword();
  // Two instances starting together on one database: only the one whose hash landed announces.
  if (!(await store.createPasswordHash(config.adminUser, await hashPassword(password)))) return;
  announce(`paddock: generated break-glass password for "${config.adminUser}" (shown once): ${password}\n`);
}
