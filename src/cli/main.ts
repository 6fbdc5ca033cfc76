/** The `paddock` command: parses the verb and hands over to its module. */
import { ADMIN_VERBS } from './admin_commands.ts';
import { settingsHelp } from './settings_help.ts';
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

/** What a verb runs and says for --help, from its module: loaded only when that verb is used. */
interface Command {
  help: string;
  run: (args: string[]) => Promise<number>;
}

/**
 * Each verb's module is imported when the verb is used, so a command loads what it runs and no
 * more (`paddock devices list` does not load the server). `positionals`: the verb takes arguments
 * (a file name); `flags`: the boolean options it takes besides --help.
 */
const verbs: Record<string, { load: () => Promise<Command>; positionals?: true; flags?: readonly string[] }> = {
  serve: {
    load: async () => ({
      help: 'Usage: paddock serve\n\nRuns the operator console, discovery, health and the control API on PADDOCK_LISTEN.\n',
      run: (await import('./serve.ts')).serveCommand,
    }),
  },
  'set-admin-password': {
    load: async () => ({
      help: 'Usage: paddock set-admin-password\n\nReads a password (at least 12 characters) from stdin, without echo on a terminal,\nand stores its argon2id hash for PADDOCK_ADMIN_USER in the store.\n',
      run: (await import('./set_admin_password.ts')).setAdminPasswordCommand,
    }),
  },
  'reset-admin-totp': {
    load: async () => {
      const m = await import('./reset_admin_totp.ts');
      return { help: m.resetAdminTotpHelp, run: m.resetAdminTotpCommand };
    },
  },
  'rotate-control-key': {
    load: async () => {
      const m = await import('./rotate_control_key.ts');
      return { help: m.rotateControlKeyHelp, run: m.rotateControlKeyCommand };
    },
    flags: ['compromised'],
  },
  check: {
    load: async () => {
      const m = await import('./check.ts');
      return { help: m.checkHelp, run: m.checkCommand };
    },
  },
  backup: {
    load: async () => {
      const m = await import('./backup.ts');
      return { help: m.backupHelp, run: m.backupCommand };
    },
    positionals: true,
  },
  restore: {
    load: async () => {
      const m = await import('./backup.ts');
      return { help: m.restoreHelp, run: m.restoreCommand };
    },
    positionals: true,
  },
  device: {
    load: async () => {
      const m = await import('./device.ts');
      return { help: m.deviceHelp, run: m.deviceCommand };
    },
  },
  ...Object.fromEntries(
    ADMIN_VERBS.map((verb) => [
      verb,
      {
        load: async (): Promise<Command> => {
          const m = await import('./admin.ts');
          return { help: m.adminHelp(verb), run: (args: string[]) => m.adminCommand(verb, args) };
        },
      },
    ]),
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
    // Every command's module is loaded here on purpose: one `paddock --help` fills Node's compile
    // cache for all of them (the container image's build runs it on its read-only root; the bench too).
    await Promise.all(Object.values(verbs).map((v) => v.load()));
    process.stdout.write(usage);
    return 0;
  }
  const declared = verbs[verb];
  if (!declared) {
    // One line, so the mistake stays on the screen; the whole usage is one --help away.
    process.stderr.write(`paddock: ${unknownCommand(verb, Object.keys(verbs), 'paddock --help')}\n`);
    return 2;
  }
  const command = await declared.load();
  // `device` and the admin commands parse their own sub-commands and options; the others take only --help.
  if (verb === 'device' || ADMIN_VERBS.includes(verb)) return command.run(rest);
  try {
    const { values } = parseOptions(
      rest,
      {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries((declared.flags ?? []).map((flag) => [flag, { type: 'boolean' as const }])),
      },
      `paddock ${verb} --help`,
      declared.positionals === true,
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
