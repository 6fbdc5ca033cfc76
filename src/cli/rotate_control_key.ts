/**
 * `paddock rotate-control-key` (docs/contract.md section 16): on the server, with the configuration
 * `paddock serve` uses, makes the next control key the current one (with a new certificate) and a
 * new next key, in the store every instance shares; each serves it within 60 s. Exit codes as the
 * other server commands: 0 done, 1 the store failed, 2 the configuration is wrong, which includes a
 * control certificate configured from files: that key is the operator's, not the store's. With
 * `--compromised` (section 23) both keys are replaced at once: no device trusts the new ones yet.
 */
import { parseArgs } from 'node:util';
import { rotateControlKeyAction } from '../actions/control_key.ts';
import { auditLogger } from '../audit/audit_logger.ts';
import { systemClock } from '../clock.ts';
import { ConfigError } from '../config/parse.ts';
import { jsonLogger } from '../log/logger.ts';
import { StoreError } from '../store/errors.ts';
import { openStore } from '../store/open.ts';
import { serverConfig } from './server_config.ts';

export const rotateControlKeyHelp = `Usage: paddock rotate-control-key [--compromised]

Replaces the control key every device pins. Enrollment links carry two pins, the
current key's and the next one's, and devices keep both up to date as they check in:
this makes the next key the current one (with a new certificate) and makes a new
next key. Every instance sharing the store serves the new key within 60 s (SIGHUP
makes a server load it at once). Devices that checked in since the last rotation
keep working; one that missed two rotations needs a new enrollment link.
Run it on the server, with the configuration paddock serve uses; audited as
control_key.rotated. Not with PADDOCK_CONTROL_TLS_CERT: a configured key is yours
to replace.

  --compromised   the control key may have been copied (with the store and its seal key):
                  replace both keys, the current one and the next one, with new ones. No
                  device trusts them: every device needs a new enrollment link.

Exit status: 0 rotated, 1 the store failed, 2 bad configuration.
`;

export async function rotateControlKeyCommand(args: string[]): Promise<number> {
  // main.ts has refused any other option already.
  const { compromised } = parseArgs({ args, options: { compromised: { type: 'boolean' } } }).values;
  const config = serverConfig();
  if (config === undefined) return 2;
  if (config.controlTls !== undefined) {
    process.stderr.write(
      'paddock: PADDOCK_CONTROL_TLS_CERT is set: the control key is the configured one, which only its files change; rotate-control-key replaces the key generated and kept in the store\n',
    );
    return 2;
  }
  let rotated: { retired: readonly string[]; pins: readonly string[] };
  try {
    const store = await openStore(config);
    try {
      // The log hears only the trail's own failures here; the event itself is the audit row.
      const logger = auditLogger(
        jsonLogger('error', (line) => process.stderr.write(line)),
        store,
        systemClock,
      );
      rotated = await rotateControlKeyAction({ store, logger, clock: systemClock }, config.controlHost, {
        compromised,
      });
      await logger.flush();
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`paddock: ${err.message}\n`);
      return 2;
    }
    if (!(err instanceof StoreError) && (err as { code?: unknown }).code !== 'ERR_SQLITE_ERROR') throw err;
    process.stderr.write(`paddock: cannot rotate the control key: ${(err as Error).message}\n`);
    return 1;
  }
  const [current, next] = rotated.pins;
  process.stderr.write(
    compromised
      ? `paddock: both control keys replaced: every instance serves ${current} within 60 s; the next key is ${next}; ${rotated.retired.join(' and ')} are trusted no more: every device needs a new enrollment link\n`
      : `paddock: control key rotated: every instance serves ${current} within 60 s; the next key is ${next}; ${rotated.retired.join('')} is no longer served\n`,
  );
  return 0;
}
