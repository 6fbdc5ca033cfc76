/** The `paddock` command: parses the verb and hands over to its module. */
import { serveCommand } from './serve.ts';
import { setAdminPasswordCommand } from './set_admin_password.ts';
import { deviceCommand, deviceHelp } from './device.ts';
import { settingsHelp } from './settings_help.ts';
import { ADMIN_VERBS, adminCommand, adminHelp } from './admin.ts';
import { backupCommand, backupHelp, restoreCommand, restoreHelp } from './backup.ts';
import { checkCommand, checkHelp } from './check.ts';
import { resetAdminTotpCommand, resetAdminTotpHelp } from './reset_admin_totp.ts';
import { rotateControlKeyCommand, rotateControlKeyHelp } from './rotate_control_key.ts';
import { parseOptions, unknownCommand, UsageError } from './usage.ts';

const usage = `Usage: paddock <command> [options]

Commands:
  serve                 run the server until SIGINT or SIGTERM
  set-admin-password    read a password from stdin and store its hash for the break-glass account
  reset-admin-totp      remove the break-glass account's second factor (lost authenticator)
  rotate-control-key    replace the control key devices pin with the next one (--compromised: both)
  check                 check the configuration, store, seal key, identity provider and certificates
  backup FILE           write a consistent copy of the SQLite store while the server runs
  restore FILE          replace the SQLite store with a backup (refused while a server runs)
  device enroll|upload  the reference device client (see paddock device --help)
  devices               list, get, rename, revoke and delete devices      (over the JSON API,
  enroll-tokens         list, mint and revoke enrollment tokens            with PADDOCK_URL and
  runs                  list, get, delete and download runs                PADDOCK_TOKEN; see
  collections           ask devices for a run; list, show and cancel asks  paddock <command> --help)
  audit                 read the audit trail
  tokens                list, create and revoke access tokens (--scope scim)

Options:
  -h, --help            show this help (also: paddock <command> --help)

Configuration is read from the environment (empty counts as unset):
${settingsHelp()}`;

/** `positionals`: the verb takes arguments (a file name); `flags`: the boolean options it takes besides --help. */
const verbs: Record<
  string,
  { help: string; run: (args: string[]) => Promise<number>; positionals?: true; flags?: readonly string[] }
> = {
  serve: {
    help: 'Usage: paddock serve\n\nRuns the operator console, discovery, health and the control API on PADDOCK_LISTEN.\n',
    run: serveCommand,
  },
  'set-admin-password': {
    help: 'Usage: paddock set-admin-password\n\nReads a password (at least 12 characters) from stdin, without echo on a terminal,\nand stores its argon2id hash for PADDOCK_ADMIN_USER in the store.\n',
    run: setAdminPasswordCommand,
  },
  'reset-admin-totp': { help: resetAdminTotpHelp, run: resetAdminTotpCommand },
  'rotate-control-key': { help: rotateControlKeyHelp, run: rotateControlKeyCommand, flags: ['compromised'] },
  check: { help: checkHelp, run: checkCommand },
  backup: { help: backupHelp, run: backupCommand, positionals: true },
  restore: { help: restoreHelp, run: restoreCommand, positionals: true },
  device: { help: deviceHelp, run: deviceCommand },
  ...Object.fromEntries(
    ADMIN_VERBS.map((verb) => [verb, { help: adminHelp(verb), run: (args: string[]) => adminCommand(verb, args) }]),
  ),
};

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  // Asked-for help goes to stdout; usage shown because of a mistake goes to stderr.
  if (verb === undefined) {
    process.stderr.write(usage);
    return 2;
  }
  if (verb === '--help' || verb === '-h') {
    process.stdout.write(usage);
    return 0;
  }
  const command = verbs[verb];
  if (!command) {
    // One line, so the mistake stays on the screen; the whole usage is one --help away.
    process.stderr.write(`paddock: ${unknownCommand(verb, Object.keys(verbs), 'paddock --help')}\n`);
    return 2;
  }
  // `device` and the admin commands parse their own sub-commands and options; the others take only --help.
  if (verb === 'device' || ADMIN_VERBS.includes(verb)) return command.run(rest);
  try {
    const { values } = parseOptions(
      rest,
      {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries((command.flags ?? []).map((flag) => [flag, { type: 'boolean' as const }])),
      },
      `paddock ${verb} --help`,
      command.positionals === true,
    );
    if (values.help) {
      process.stdout.write(command.help);
      return 0;
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`paddock ${verb}: ${err.message}\n`);
    return err.code;
  }
  return command.run(rest);
}

process.exitCode = await main(process.argv.slice(2));
