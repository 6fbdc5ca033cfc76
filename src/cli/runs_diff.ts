/**
 * `paddock runs diff DEVICE/ID DEVICE/ID` (docs/contract.md section 21): the API's unified diff of the
 * first run (old) and the second (new), written as it came, so `paddock runs diff A B | patch -u file`
 * works. Exit 0 whether or not the runs differ: this is a report fetched, not diff(1)'s test (an
 * empty output says they are the same). The lines are a device's text and may carry escape
 * sequences a terminal obeys (runs_raw.ts): on a terminal, control characters other than tab and
 * line feed are shown as their Unicode control pictures, as the console shows them.
 */
import { type ApiClient, CliFailure, EXIT } from './api_client.ts';
import { path } from './sub_command.ts';

/** `DEVICE/ID` as its two parts, or a usage mistake naming the argument. */
function runArgument(text: string): [string, string] {
  const at = text.indexOf('/');
  if (at <= 0 || at === text.length - 1)
    throw new CliFailure(`runs diff: ${JSON.stringify(text)} is not DEVICE/ID`, EXIT.usage);
  return [text.slice(0, at), text.slice(at + 1)];
}

// C0 controls but tab and line feed, DEL, C1 controls, and the bidi overrides and isolates.
const unsafe = /[\0-\x08\x0B-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]/g;
const visible = (char: string) => {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd';
};

export async function runsDiff(api: ApiClient, oldRun: string, newRun: string): Promise<{ kind: 'done'; message: '' }> {
  const [device, id] = runArgument(oldRun);
  runArgument(newRun);
  const body = await api.download(`/api/v1/runs/${path(device, id)}/compare?with=${encodeURIComponent(newRun)}`);
  const bytes = Buffer.from(await new Response(body).arrayBuffer());
  const out = process.stdout.isTTY ? Buffer.from(bytes.toString('utf8').replace(unsafe, visible)) : bytes;
  await new Promise<void>((done, failed) => process.stdout.write(out, (err) => (err ? failed(err) : done())));
  return { kind: 'done', message: '' };
}
