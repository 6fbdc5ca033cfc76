/**
 * `paddock runs raw DEVICE ID`: a run's bytes exactly as the device uploaded them (docs/contract.md
 * section 11), into a new file or to stdout. The bytes are the device's, not ours, and may carry
 * escape sequences a terminal obeys (OSC 52 sets the clipboard, OSC 0 the window title), so they
 * reach a terminal only when asked for with `--output -` (security review finding 7, issue 34).
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { type FileHandle, link, open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ApiClient, CliFailure, EXIT } from './api_client.ts';

/** What it did, for the command to print (admin_commands.ts's `done` output). */
type Done = { kind: 'done'; message: string };

/** The `--output` that means stdout, a terminal included, as curl and tar spell it. */
export const STDOUT = '-';

/** The bytes at `at` into `output`: a new file, stdout when `-`, and stdout unless a terminal when not given. */
export async function writeRunBytes(api: ApiClient, at: string, output: string | undefined): Promise<Done> {
  if (output === STDOUT) return toStdout(api, at);
  if (output !== undefined) return toFile(api, at, output);
  // Refused before the download (which the server audits), so the mistake costs nothing.
  if (process.stdout.isTTY)
    throw new CliFailure(
      "refusing to write a device's raw bytes to a terminal, which obeys the escape sequences they may carry; " +
        `use --output FILE, or --output ${STDOUT} to insist`,
      EXIT.usage,
    );
  return toStdout(api, at);
}

async function toStdout(api: ApiClient, at: string): Promise<Done> {
  const body = await api.download(at);
  for await (const chunk of body) if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  return { kind: 'done', message: '' };
}

/**
 * Refused before the download when the file exists or its directory cannot take it. Written
 * beside the file and linked to its name when whole: a failed download leaves nothing behind, and
 * a file that appeared meanwhile is never replaced (link fails with EEXIST).
 */
async function toFile(api: ApiClient, at: string, output: string): Promise<Done> {
  if (existsSync(output))
    throw new CliFailure(
      `${output} already exists; remove it or choose another --output (nothing was downloaded)`,
      EXIT.refused,
    );
  const partial = `${output}.partial-${process.pid}`;
  let file: FileHandle;
  try {
    file = await open(partial, 'wx', 0o600);
  } catch (err) {
    throw new CliFailure(`cannot write ${output}: ${(err as Error).message}`, EXIT.refused);
  }
  try {
    const body = await api.download(at);
    await pipeline(Readable.fromWeb(body), file.createWriteStream());
    await link(partial, output).catch((err: unknown) => {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
      throw new CliFailure(`${output} appeared during the download and was left as it was`, EXIT.refused);
    });
  } finally {
    await file.close().catch(() => {});
    await rm(partial, { force: true });
  }
  return { kind: 'done', message: `wrote ${output}` };
}
