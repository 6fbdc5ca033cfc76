/**
 * `paddock reset-admin-totp`: removes the break-glass account's second factor, for an operator on the
 * server whose authenticator is lost with its recovery codes (docs/contract.md section 14). It reads
 * the store `paddock serve` uses, as set-admin-password does, and the audit trail records it as
 * `totp.reset` by `system`. Exit codes as the other commands: 0 done (or nothing to remove), 1 the
 * store failed, 2 the configuration is wrong.
 */
import { resetTotp } from '../actions/totp.ts';
import { auditLogger } from '../audit/audit_logger.ts';
import { systemClock } from '../clock.ts';
import { ConfigError } from '../config/parse.ts';
import { jsonLogger } from '../log/logger.ts';
import { StoreError } from '../store/errors.ts';
import { openStore } from '../store/open.ts';
import { serverConfig } from './server_config.ts';

export const resetAdminTotpHelp = `Usage: paddock reset-admin-totp

Removes the second factor (TOTP and its recovery codes) of the break-glass account
PADDOCK_ADMIN_USER, so that it signs in with its password alone; it can then set up a
new one at /totp. Run it on the server, with the configuration paddock serve uses: it
writes to the store directly, and the audit trail records it (totp.reset).
Exit status: 0 removed or none was set up, 1 the store failed, 2 bad configuration.
`;

export async function resetAdminTotpCommand(): Promise<number> {
  const config = serverConfig();
  if (config === undefined) return 2;
  let removed: boolean;
  try {
    const store = await openStore(config);
    try {
      // The log hears only the trail's own failures here; the event itself is the audit row.
      const logger = auditLogger(
        jsonLogger('error', (line) => process.stderr.write(line)),
        store,
        systemClock,
      );
      removed = await resetTotp({ store, logger, clock: systemClock }, `local:${config.adminUser}`);
      await logger.flush();
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`paddock: ${err.message}\n`);
      return 2;
    }
    if (!(err instanceof StoreError)) throw err;
    process.stderr.write(`paddock: cannot reset the second factor: ${err.message}\n`);
    return 1;
  }
  process.stderr.write(
    removed
      ? `paddock: second factor of "${config.adminUser}" removed; it signs in with its password alone\n`
      : `paddock: "${config.adminUser}" has no second factor; nothing changed\n`,
  );
  return 0;
}
