/** `paddock device enroll|upload|watch`: the reference device client as commands. */
import { readFile } from 'node:fs/promises';
import type { LookupFunction } from 'node:net';
import { type ClientOptions, enroll, uploadRun } from '../device_client/client.ts';
import { LinkError } from '../device_client/link.ts';
import { localFacts, reportChangedFacts, reportFacts } from '../device_client/facts.ts';
import { isPrivacyLevel, PRIVACY_LEVELS, PRIVACY_LEVELS_TEXT } from '../domain/privacy.ts';
import { checkStateDirectory, type DeviceState, readState, writeState } from '../device_client/state.ts';
import { watch } from '../device_client/watch.ts';
import { MAX_WAIT_S } from '../domain/collections.ts';
import { type Advice, errorCode, transportFailure } from './transport.ts';
import { parseOptions, unknownCommand, UsageError } from './usage.ts';

export const deviceHelp = `Usage:
  paddock device enroll <link | -> [--state FILE] [--name NAME] [--ca FILE] [--resolve HOST:ADDRESS]...
  paddock device upload <file> --privacy ${PRIVACY_LEVELS.join('|')} [--id ID] [--content-type TYPE]
                        [--state FILE] [--resolve HOST:ADDRESS]...
  paddock device watch --collect COMMAND [--wait SECONDS | --once] [--content-type TYPE]
                       [--state FILE] [--resolve HOST:ADDRESS]...
  paddock device facts [--state FILE] [--resolve HOST:ADDRESS]...

enroll   parses the enrollment link, asks https://<server>/v1/discover where to connect (unless
         the link names control=), connects only if the certificate matches one of the link's
         pins, enrolls, and keeps the credential and the pins in the state file (mode 0600).
         With - the link is read from standard input (its first line), so the process list
         does not show it.
         Every later connection trusts any pin held; when the server says its set changed (a
         control key rotation) the device fetches the new set and keeps it, unless the set drops
         the next pin held without making it current. When the server asks
         for a new credential (Paddock-Rotate), the device rotates it and keeps the new one in the
         state file before using it.
         Enrollment reports this machine's facts (os, os_version, arch, hostname and
         client_version); upload and watch report them again whenever they have changed.
upload   applies the privacy level on this machine, then uploads with retries; the default id
         is derived from the uploaded bytes, so repeating an upload is harmless.
watch    answers the operators' requests for a run: holds an ask open (--wait, 1 to ${MAX_WAIT_S} s,
         default ${MAX_WAIT_S}); for each request runs COMMAND with sh -c (PADDOCK_REQUEST_ID,
         PADDOCK_REQUEST_PRIVACY and PADDOCK_REQUEST_REASON in its environment), applies the
         level asked (never above this device's ceiling) to its standard output (at most 16 MiB)
         and uploads it for the request; a command that fails declines the request with its exit
         status and the last 3 KiB of its standard error (which also goes to this one's). After
         an error it waits 1 s doubling to 60 s (or the server's Retry-After);
         SIGINT or SIGTERM stops it (exit 0). --once answers what is open now, then exits.
facts    reports this machine's facts now, changed or not, and prints them.

  --state FILE        device state (default ./paddock-device.json), in a directory only you
                      may write
  --ca FILE           extra CA certificate trusted for discovery (never for the control connection)
  --resolve HOST:ADDR connect to ADDR whenever HOST is named (like curl --resolve)
  --content-type TYPE of the file or the command's output (default text/plain; charset=utf-8)

Exit codes: 0 done (watch: stopped, or with --once every request fulfilled or declined); 1 the
server refused (watch: the device is revoked, or with --once a request was refused), its key
matched none of the pins held (the device needs a new enrollment link), or a file could not be
read or written; 2 a usage mistake (including a malformed link); 3 the server could
not be reached.
`;

/** Devices trust the control certificate only through the link's pin, and speak only TLS. */
const ADVICE: Advice = {
  trust: "the control connection trusts only the link's pin",
  plain: () => 'devices connect over TLS only: the server needs TLS (see "TLS on one port" in the README)',
};

/** What a run is sent as unless --content-type says otherwise. */
const CONTENT_TYPE = 'text/plain; charset=utf-8';

const common = {
  state: { type: 'string', default: './paddock-device.json' },
  resolve: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function deviceCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'enroll') return await enrollCommand(rest);
    if (sub === 'upload') return await uploadCommand(rest);
    if (sub === 'watch') return await watchCommand(rest);
    if (sub === 'facts') return await factsCommand(rest);
    if (sub === undefined || sub === '--help' || sub === '-h') {
      (sub === undefined ? process.stderr : process.stdout).write(deviceHelp);
      return sub === undefined ? 2 : 0;
    }
    throw new UsageError(unknownCommand(sub, ['enroll', 'upload', 'watch', 'facts'], 'paddock device --help'));
  } catch (err) {
    const url = (err as { url?: unknown }).url;
    const transport = url instanceof URL && errorCode(err) !== undefined;
    const message = transport ? transportFailure(err, url, ADVICE) : (err as Error).message;
    process.stderr.write(`paddock device: ${message}\n`);
    return err instanceof UsageError || err instanceof LinkError ? 2 : transport ? 3 : 1;
  }
}

/** `enroll -`: the link's first line from standard input (a process's arguments are readable by other local users). */
async function linkFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n') || text.length > 8192) break;
  }
  const line = text.split('\n')[0]?.replace(/\r$/, '') ?? '';
  if (line === '') throw new UsageError('enroll -: no link on standard input');
  return line;
}

async function enrollCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { ...common, name: { type: 'string' }, ca: { type: 'string' } },
    'paddock device --help',
  );
  if (values.help || positionals.length !== 1) return usage(values.help);
  const opts = clientOptions(values.resolve, values.ca ? await readFile(values.ca, 'utf8') : undefined);
  const link = positionals[0] === '-' ? await linkFromStdin() : (positionals[0] ?? '');
  // Before the link's token is spent: the state could not be kept there.
  await checkStateDirectory(values.state);
  const state = await enroll(link, values.name, opts, localFacts());
  await writeState(values.state, state);
  process.stderr.write(
    `paddock device: enrolled as ${state.device} at ${state.controlUrl}; state in ${values.state}\n`,
  );
  return 0;
}

async function uploadCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { ...common, privacy: { type: 'string' }, id: { type: 'string' }, 'content-type': { type: 'string' } },
    'paddock device --help',
  );
  if (values.help || positionals.length !== 1) return usage(values.help);
  const privacy = values.privacy;
  if (!isPrivacyLevel(privacy)) {
    process.stderr.write(`paddock device: --privacy must be ${PRIVACY_LEVELS_TEXT}\n`);
    return 2;
  }
  const options = clientOptions(values.resolve, undefined, values.state);
  const state = await readState(values.state);
  const bytes = await readFile(positionals[0] ?? '');
  await reportChangedFacts(state, options);
  const result = await uploadRun(
    state,
    {
      bytes,
      contentType: values['content-type'] ?? CONTENT_TYPE,
      privacy,
      id: values.id,
    },
    options,
  );
  process.stderr.write(`paddock device: run ${result.id} ${result.status === 201 ? 'stored' : 'was already stored'}\n`);
  return 0;
}

async function factsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(args, common, 'paddock device --help');
  if (values.help || positionals.length !== 0) return usage(values.help);
  const options = clientOptions(values.resolve, undefined, values.state);
  const state = await readState(values.state);
  const facts = localFacts();
  await reportFacts(state, facts, options);
  state.facts = { ...facts };
  await writeState(values.state, state);
  for (const [key, value] of Object.entries(facts)) process.stdout.write(`${key}=${value}\n`);
  process.stderr.write(`paddock device: reported ${Object.keys(facts).length} facts\n`);
  return 0;
}

async function watchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    {
      ...common,
      collect: { type: 'string' },
      wait: { type: 'string' },
      once: { type: 'boolean' },
      'content-type': { type: 'string' },
    },
    'paddock device --help',
  );
  if (values.help || positionals.length !== 0) return usage(values.help);
  const command = values.collect;
  if (command === undefined || command.trim() === '')
    throw new UsageError('watch needs --collect COMMAND, the command whose standard output is the run');
  if (values.once && values.wait !== undefined)
    throw new UsageError('--wait and --once do not go together: --once answers what is open now');
  const waitS = values.wait === undefined ? MAX_WAIT_S : Number(values.wait);
  if (!/^[1-9][0-9]?$/.test(values.wait ?? '1') || waitS > MAX_WAIT_S)
    throw new UsageError(`--wait must be whole seconds from 1 to ${MAX_WAIT_S}`);
  const options = clientOptions(values.resolve, undefined, values.state);
  const state = await readState(values.state);
  // The first SIGINT or SIGTERM stops the watch cleanly; a second one, its handler gone, ends it at once.
  const stopping = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    options.log?.(`${signal}: stopping`);
    stopping.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const end = await watch(state, {
      ...options,
      signal: stopping.signal,
      command,
      waitS: values.once ? 0 : waitS,
      once: values.once ?? false,
      contentType: values['content-type'] ?? CONTENT_TYPE,
    });
    return end === 'refused' ? 1 : 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function usage(help: boolean | undefined): number {
  (help ? process.stdout : process.stderr).write(deviceHelp);
  return help ? 0 : 2;
}

/** `statePath`: where the client keeps what it changes of the state (new pins, a rotated credential) as it goes. */
function clientOptions(resolve: string[] | undefined, ca: string | undefined, statePath?: string): ClientOptions {
  const log = (line: string) => process.stderr.write(`paddock device: ${line}\n`);
  return {
    discoveryCa: ca,
    lookup: resolveLookup(resolve ?? []),
    log,
    ...(statePath === undefined
      ? {}
      : { saveState: (state: DeviceState) => writeState(statePath, state), loadState: () => readState(statePath) }),
  };
}

/** A lookup that answers `--resolve HOST:ADDRESS` pairs and defers everything else to the system. */
function resolveLookup(pairs: string[]): LookupFunction | undefined {
  if (pairs.length === 0) return undefined;
  const table = new Map(
    pairs.map((p) => {
      const at = p.indexOf(':');
      if (at < 1) throw new UsageError(`--resolve ${p}: expected HOST:ADDRESS`);
      return [p.slice(0, at).toLowerCase(), p.slice(at + 1)] as const;
    }),
  );
  return (hostname, options, callback) => {
    const address = table.get(hostname.toLowerCase());
    if (address === undefined) {
      import('node:dns').then((dns) => dns.lookup(hostname, options, callback as never));
      return;
    }
    const family = address.includes(':') ? 6 : 4;
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
