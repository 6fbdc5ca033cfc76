/**
 * `paddock devices|enroll-tokens|runs|collections|audit …`: the admin CLI over the JSON API (docs/contract.md
 * sections 11 and 15): parses a sub-command of cli/admin_commands.ts, runs it with PADDOCK_URL and PADDOCK_TOKEN,
 * and prints a table for people, or with `--json` the API's JSON as it came (with `--all`, every
 * page's items in one `{"items": […]}`).
 */
import { VERBS } from './admin_commands.ts';
import { apiClient, CliFailure, EXIT } from './api_client.ts';
import { printable, record, table } from './table.ts';
import type { Output } from './sub_command.ts';
import { parseOptions, unknownCommand, UsageError } from './usage.ts';

export function adminHelp(verb: string): string {
  const subs = VERBS[verb] ?? {};
  return `Usage:
${Object.entries(subs)
  .map(([name, s]) => {
    // Continued lines and the note stand under the arguments, past `  paddock <verb> <name> `.
    const under = `\n${' '.repeat(verb.length + name.length + 12)}`;
    const note = s.note === undefined ? '' : `${under}(${s.note.replaceAll('\n', under)})`;
    return `  paddock ${verb} ${s.usage.replaceAll('\n', under)}${note}`;
  })
  .join('\n')}

Lists take --before CURSOR (a page's "next") and --all (every page). Every command takes --json
(print the API's JSON instead of a table). Days are YYYY-MM-DD, UTC.

Reads PADDOCK_URL (the console address, e.g. https://paddock.example; http:// only on this machine)
and PADDOCK_TOKEN (a personal access token from the console's Access tokens page; never given as
an argument). A certificate from a private CA: NODE_EXTRA_CA_CERTS=/path/to/ca.pem.

Exit codes: 0 done; 1 the server refused or failed (its message on stderr), or the output file
could not be written; 2 a usage or configuration mistake; 3 the server could not be reached.
`;
}

/** Runs `paddock <verb> …`; the exit code. */
export async function adminCommand(verb: string, args: string[]): Promise<number> {
  const subs = VERBS[verb] ?? {};
  const [name, ...rest] = args;
  // `paddock audit` alone lists, as does `paddock audit --event …`.
  const listing =
    verb === 'audit' && (name === undefined || (name.startsWith('-') && name !== '--help' && name !== '-h'));
  if (listing) return adminCommand(verb, ['list', ...args]);
  if (name === undefined || name === '--help' || name === '-h') {
    (name === undefined ? process.stderr : process.stdout).write(adminHelp(verb));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const sub = subs[name];
  if (!sub) {
    process.stderr.write(`paddock ${verb}: ${unknownCommand(name, Object.keys(subs), `paddock ${verb} --help`)}\n`);
    return EXIT.usage;
  }
  try {
    const { values, positionals } = parseOptions(
      rest,
      { ...sub.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      `paddock ${verb} --help`,
    );
    if (values.help) {
      process.stdout.write(adminHelp(verb));
      return EXIT.ok;
    }
    if (sub.more ? positionals.length < sub.positionals : positionals.length !== sub.positionals)
      throw new CliFailure(`usage: paddock ${verb} ${sub.usage.replaceAll('\n', ' ')}`, EXIT.usage);
    const output = await sub.run(apiClient(process.env), positionals, values);
    const shown = values.json ? asJson(output) : asText(output);
    if (shown) process.stdout.write(shown);
    return output.exit ?? EXIT.ok;
  } catch (err) {
    const code = err instanceof CliFailure || err instanceof UsageError ? err.code : EXIT.refused;
    process.stderr.write(`paddock ${verb}: ${printable((err as Error).message)}\n`);
    return code;
  }
}

function asJson(output: Output): string {
  if (output.kind === 'list') return `${JSON.stringify(output.page)}\n`;
  if (output.kind === 'one') return `${JSON.stringify(output.item)}\n`;
  if (output.kind === 'one-and-list') return `${JSON.stringify(output.json)}\n`;
  return output.json === undefined ? '' : `${JSON.stringify(output.json)}\n`;
}

function asText(output: Output): string {
  if (output.kind === 'one') return record(output.item);
  if (output.kind === 'done') return output.message ? `${output.message}\n` : '';
  if (output.kind === 'one-and-list') return `${record(output.item)}\n${listText(output)}`;
  return listText(output);
}

/** A page as a table, `none` when it is empty; the cursor of the next page on stderr. */
function listText({ page, columns }: Extract<Output, { page: unknown }>): string {
  const rows = page.items.map((item) => columns.map(([, field]) => field(item)));
  if (page.next !== undefined) process.stderr.write(`more: --before ${printable(page.next)}\n`);
  return page.items.length
    ? table(
        columns.map(([h]) => h),
        rows,
      )
    : 'none\n';
}
