// Security review finding 7 (issue 34): `paddock runs raw` wrote a device's bytes to whatever its
// stdout was, a terminal included, and a run can carry escape sequences a terminal obeys: OSC 52
// sets the clipboard, OSC 0 the window title. On a terminal it now refuses without `--output`;
// `--output -` insists, `--output FILE` writes the file, and a pipe gets the bytes as before. The
// terminal is a real one: the command runs under a pseudo-terminal (util-linux script).
import assert from 'node:assert/strict';
import { spawn, type SpawnOptionsWithStdioTuple, type StdioNull, type StdioPipe } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { consoleClient } from '../multi/client.ts';
import { paddock } from '../support/process.ts';

const PASSWORD = 'the raw terminal finding password';
const BYTES = Buffer.from('a run \x1b]52;c;ZXZpbA==\x07 that sets the clipboard \x1b]0;and the title\x07 (end)');
const bin = new URL('../../bin/paddock.js', import.meta.url).pathname;

let dir: string;
let base: string;
let token: string;
let device: string;
let stop: () => Promise<void>;

const api = async (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `paddock …` in the temporary directory (where a stray file named `-` would land), its stdout
 * and stderr a pseudo-terminal or pipes; its exit code and what the terminal or stdout showed.
 */
async function run(args: string[], on: 'terminal' | 'pipe'): Promise<{ code: number | null; shown: Buffer }> {
  const command = [process.execPath, bin, ...args];
  const child =
    on === 'terminal'
      ? spawn('script', ['--quiet', '--return', '--command', command.map(quote).join(' '), '/dev/null'], options())
      : spawn(process.execPath, command.slice(1), options());
  const chunks: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  child.stderr.on('data', (d: Buffer) => chunks.push(d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, shown: Buffer.concat(chunks) };
}

const options = (): SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe> => ({
  cwd: dir,
  env: { PATH: process.env.PATH ?? '', PADDOCK_URL: base, PADDOCK_TOKEN: token },
  stdio: ['ignore', 'pipe', 'pipe'],
});

const downloads = async () =>
  ((await (await api('/api/v1/audit?event=run.downloaded')).json()) as { items: unknown[] }).items.length;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paddock-raw-terminal-'));
  const serve = paddock(['serve'], {
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_ADMIN_PASSWORD: PASSWORD,
  });
  base = (await serve.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
  stop = async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
  };
  token = await consoleClient(() => PASSWORD).accessToken(base, 'raw terminal finding');
  const minted = (await (
    await api('/api/v1/enroll-tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  ).json()) as {
    link: string;
  };
  const enrolled = await fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(minted.link).searchParams.get('token'), name: 'hostile' }),
  });
  assert.equal(enrolled.status, 201);
  const { device: id, credential } = (await enrolled.json()) as { device: string; credential: string };
  device = id;
  const uploaded = await fetch(`${base}/v1/runs/osc`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
    body: BYTES,
  });
  assert.equal(uploaded.status, 201);
});

after(async () => {
  await stop();
  await rm(dir, { recursive: true, force: true });
});

test("finding: paddock runs raw refuses to write a device's bytes to a terminal", async () => {
  const before = await downloads();
  const refused = await run(['runs', 'raw', device, 'osc'], 'terminal');
  assert.equal(refused.code, 2, refused.shown.toString());
  assert.equal(
    refused.shown.toString(),
    "paddock runs: refusing to write a device's raw bytes to a terminal, which obeys the escape sequences " +
      'they may carry; use --output FILE, or --output - to insist\r\n',
  );
  assert.ok(!refused.shown.includes('\x1b'), 'no escape sequence reached the terminal');
  assert.equal(await downloads(), before, 'refused before the download, so nothing was downloaded or audited');
  assert.deepEqual(await readdir(dir), ['data'], 'and no file was written');
});

test('paddock runs raw --output - writes the bytes to a terminal when insisted on', async () => {
  const insisted = await run(['runs', 'raw', device, 'osc', '--output', '-'], 'terminal');
  assert.equal(insisted.code, 0, insisted.shown.toString());
  assert.deepEqual(insisted.shown, BYTES);
  assert.deepEqual(await readdir(dir), ['data'], 'no file named -');
});

test('paddock runs raw --output FILE on a terminal writes the exact bytes to the file', async () => {
  const file = join(dir, 'osc.run');
  const written = await run(['runs', 'raw', device, 'osc', '--output', file], 'terminal');
  assert.equal(written.code, 0, written.shown.toString());
  assert.equal(written.shown.toString(), `wrote ${file}\r\n`);
  assert.deepEqual(await readFile(file), BYTES);
  await rm(file);
});

test('paddock runs raw into a pipe writes the bytes as before, with or without --output -', async () => {
  for (const args of [[], ['--output', '-']]) {
    const piped = await run(['runs', 'raw', device, 'osc', ...args], 'pipe');
    assert.equal(piped.code, 0, piped.shown.toString());
    assert.deepEqual(piped.shown, BYTES, 'the bytes on stdout, nothing on stderr');
  }
  assert.deepEqual(await readdir(dir), ['data'], 'no file named -');
});
