/** The `paddock` command: parses the verb and hands over to its module. */
import { parseArgs } from 'node:util';
import { serveCommand } from './serve.ts';
import { setAdminPasswordCommand } from './set_admin_password.ts';
import { configVariables } from '../config/config.ts';

const usage = `Usage: paddock <command> [options]

Commands:
  serve                 run the server until SIGINT or SIGTERM
  set-admin-password    read a password from stdin and store its hash for the break-glass account

Options:
  -h, --help            show this help (also: paddock <command> --help)

Configuration is read from the environment:
  ${configVariables.join('\n  ')}
`;

const verbs: Record<string, { help: string; run: () => Promise<number> }> = {
  serve: {
    help: 'Usage: paddock serve\n\nRuns the operator console, discovery, health and the control API on PADDOCK_LISTEN.\n',
    run: serveCommand,
  },
  'set-admin-password': {
    help: 'Usage: paddock set-admin-password\n\nReads a password (at least 12 characters) from stdin, without echo on a terminal,\nand stores its argon2id hash for PADDOCK_ADMIN_USER in the store.\n',
    run: setAdminPasswordCommand,
  },
};

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    process.stderr.write(`paddock: ${(err as Error).message}\n`);
    return 2;
  }
  const [verb, ...rest] = parsed.positionals;
  if (verb === undefined) {
    process.stdout.write(usage);
    return parsed.values.help ? 0 : 2;
  }
  const command = verbs[verb];
  if (!command || rest.length > 0) {
    process.stderr.write(`paddock: unknown command "${[verb, ...rest].join(' ')}"\n\n${usage}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(command.help);
    return 0;
  }
  return command.run();
}

process.exitCode = await main(process.argv.slice(2));
