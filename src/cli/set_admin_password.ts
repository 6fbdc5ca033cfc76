/**
 * `paddock set-admin-password`: reads a password from stdin (no echo on a terminal) and stores its
 * hash; every session of the break-glass account ends with the old password (`password.changed`).
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { ConfigError } from '../config/parse.ts';
import { changeAdminPassword } from '../actions/admin_password.ts';
import { auditLogger } from '../audit/audit_logger.ts';
import { systemClock } from '../clock.ts';
import { jsonLogger } from '../log/logger.ts';
import { StoreError } from '../store/errors.ts';
import { openStore } from '../store/open.ts';
import { serverConfig } from './server_config.ts';

export async function setAdminPasswordCommand(): Promise<number> {
  const config = serverConfig();
  if (config === undefined) return 2;
  const password = await readPassword(`New password for "${config.adminUser}": `);
  if (password === undefined || [...password].length < 12) {
    process.stderr.write('paddock: the password must have at least 12 characters\n');
    return 2;
  }
  try {
    // The store serve uses: with PADDOCK_DATABASE_URL, the shared database every instance reads.
    const store = await openStore(config);
    try {
      // The log hears only the trail's own failures here; the event itself is the audit row.
      const logger = auditLogger(
        jsonLogger('error', (line) => process.stderr.write(line)),
        store,
        systemClock,
      );
      await changeAdminPassword({ store, logger, clock: systemClock }, config.adminUser, password);
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
    process.stderr.write(`paddock: cannot set the password: ${err.message}\n`);
    return 1;
  }
  process.stderr.write(`paddock: password for "${config.adminUser}" updated; its sessions are ended\n`);
  return 0;
}

/** The first line of stdin; on a terminal the prompt is shown and the typing is not echoed. */
function readPassword(prompt: string): Promise<string | undefined> {
  const tty = process.stdin.isTTY === true;
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output: tty ? output : undefined, terminal: tty });
  if (tty) {
    process.stderr.write(prompt);
    muted = true;
  }
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      if (tty) process.stderr.write('\n');
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) resolve(undefined);
    });
  });
}
