// clients/sh/paddock-device end to end (docs/contract.md section 16, "Devices without Node"): the
// POSIX sh client against a real server over TLS, under `busybox sh` with nothing but busybox's
// applets and curl on its PATH, and under `dash` with the machine's own tools. Under each it
// enrolls through discovery and the pin, reports its facts, uploads at each level (redacted and
// minimal exactly as the reference client would send them), answers and declines collection
// requests, holds a request open without its credential ever on a command line, rotates its
// credential when asked, refreshes its pins but never drops the next one (section 23), refuses a
// state directory others may write, and keeps the exit codes of `paddock device`.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pinSetRefusal } from '../../src/device_client/pin_set.ts';
import { applyPrivacy, redactText } from '../../src/domain/redaction.ts';
import type { RunningServer } from '../../src/server/serve.ts';
import { startTlsServer, type TlsServer } from '../support/tls_server.ts';
import { missing, NEEDS, searchPath } from '../support/provision.ts';
import { freePort, httpsRequest, type TlsFixture } from '../support/tls_fixture.ts';

const SCRIPT = new URL('../../clients/sh/paddock-device', import.meta.url).pathname;
const RESOLVE = ['--resolve', 'admin.test:127.0.0.1', '--resolve', 'control.test:127.0.0.1'];
/** What the script runs, from busybox: its only tools under `busybox sh` (with curl). */
const APPLETS = ['sh', 'awk', 'sed', 'grep', 'tr', 'od', 'cut', 'head', 'tail', 'wc', 'cat', 'cp', 'mv', 'rm'];
APPLETS.push('tee', 'mkfifo');
APPLETS.push('mkdir', 'chmod', 'mktemp', 'date', 'sleep', 'uname', 'sha256sum', 'ps', 'printf', 'true', 'false');
APPLETS.push('ls', 'id');

const tools = missing(
  NEEDS.filter((n) => n.for.includes('test/device_client/sh_client')),
  searchPath(),
);
const skip =
  tools.length === 0 ? false : `missing ${tools.map((n) => `${n.command} (Debian ${n.package})`).join(', ')}`;
if (skip && process.env.CI === 'true') throw new Error(`the sh client suite needs on CI: ${skip}`);

let tls: TlsServer;
let fx: TlsFixture;
let server: RunningServer;
let admin: string;
let auth: Record<string, string>;
let busyboxBin: string;
const api: TlsServer['api'] = (...args) => tls.api(...args);

before(async () => {
  if (skip) return;
  tls = await startTlsServer('sh client');
  ({ fx, server, admin, auth } = tls);
  // A PATH of busybox's applets and curl, nothing else.
  busyboxBin = join(fx.dir, 'busybox-bin');
  await mkdir(busyboxBin);
  for (const applet of APPLETS) await symlink(which('busybox'), join(busyboxBin, applet));
  await symlink(which('curl'), join(busyboxBin, 'curl'));
});
after(() => server?.close());

function which(cmd: string): string {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
}

async function runBytes(device: string, run: string): Promise<string> {
  return (await httpsRequest(`${admin}/api/v1/runs/${device}/${run}/raw`, { ca: fx.admin.certPem, headers: auth }))
    .body;
}

async function targets(collection: string) {
  const res = await api('GET', `/collections/${collection}/targets`);
  return res.body?.items as Array<{
    device: string;
    state: string;
    run: string | null;
    reason: string | null;
    stderr: string | null;
  }>;
}

interface Shell {
  name: string;
  argv: () => string[];
  path: () => string;
}

const SHELLS: Shell[] = [
  { name: 'busybox sh', argv: () => [which('busybox'), 'sh'], path: () => busyboxBin },
  { name: 'dash', argv: () => [which('dash')], path: () => process.env.PATH ?? '' },
];

interface Run {
  pid: number;
  exited: Promise<number | null>;
  stderr: () => string;
  stdout: () => string;
  kill: (signal: NodeJS.Signals) => void;
  waitFor: (re: RegExp) => Promise<void>;
}

function client(shell: Shell, args: string[], input?: string): Run {
  const [cmd = 'sh', ...pre] = shell.argv();
  const child = spawn(cmd, [...pre, SCRIPT, ...args], {
    env: { PATH: shell.path(), TMPDIR: fx.dir, HOME: fx.dir },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin?.end(input);
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d));
  child.stdout?.on('data', (d: Buffer) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    pid: child.pid ?? 0,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    kill: (signal) => child.kill(signal),
    waitFor: async (re) => {
      for (let i = 0; i < 300 && !re.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
      assert.match(stderr, re);
    },
  };
}

async function ok(run: Run): Promise<string> {
  assert.equal(await run.exited, 0, run.stderr());
  return run.stderr();
}

/** The command lines of every process on the machine, for a secret that must be on none. */
async function commandLines(): Promise<string> {
  let all = '';
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    all += await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    all += '\n';
  }
  return all;
}

describe("the sh client's redaction, the reference's rules in awk", { skip }, () => {
  const script = readFileSync(SCRIPT, 'utf8');
  const program = (name: string) => new RegExp(`^${name}='\\n([^']*)'$`, 'm').exec(script)?.[1] ?? '';
  const awkProgram = program('SENSITIVE_AWK') + program('REDACT_AWK');
  const pieces = [
    ...['"', ':', ': ', '=', ' ', '\n', '\t', ',', '{', '}', '[', ']', '\\', '\\"', "'", ';', '&', '@', '.', '-', '_'],
    ...['password', 'userName', 'name', 'note', 'x', 'auth', 'Authorization', 'Cookie', 'xauthy', 'token', 'apiKey'],
    ...['bob@example.com', 'a@b.cc', '10.0.0.1', '1.2.3.4.5', '256.1.1.1', '12:34:56', 'fe80::1', '::', 'dead:beef'],
    ...['2001:db8::ff00:42:8329', 'g', 'ff', '99', 'é', '\u00a0', '\u2028', '😀', '\r', 'null', '42', '[redacted]'],
    ...['k'.repeat(125), 'p'.repeat(64), 'd'.repeat(126) + '.com', 'é'.repeat(130)],
  ];
  let seed = 36;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const texts = Array.from({ length: 60 }, () =>
    Array.from({ length: 1 + Math.floor(random() * 30) }, () => pieces[Math.floor(random() * pieces.length)]).join(''),
  );

  for (const awk of [['busybox', 'awk'], ['awk']]) {
    test(`${awk.join(' ')}: the same bytes as redactText on ${texts.length} random texts`, () => {
      assert.ok(awkProgram.includes('function stage_a('), 'the awk programs were found in the script');
      const [cmd = 'awk', ...pre] = awk;
      for (const text of texts) {
        const nonl = text !== '' && !text.endsWith('\n') ? '1' : '0';
        const r = spawnSync(which(cmd), [...pre, '-v', `nonl=${nonl}`, awkProgram], {
          input: text,
          env: { LC_ALL: 'C' },
          encoding: 'utf8',
        });
        assert.equal(r.stdout, redactText(text), JSON.stringify(text));
      }
    });
  }
});

for (const shell of SHELLS) {
  describe(`clients/sh/paddock-device under ${shell.name}`, { skip }, () => {
    const tag = shell.name.replace(/\W+/g, '-');
    let stateDir: string;
    let device: string;
    const st = () => ['--state', stateDir, ...RESOLVE];

    test('is POSIX sh: the shell parses it without running it', () => {
      const [cmd = 'sh', ...pre] = shell.argv();
      const check = spawnSync(cmd, [...pre, '-n', SCRIPT], { encoding: 'utf8' });
      assert.equal(check.status, 0, check.stderr);
    });

    test('enroll, the link on standard input: discovery, the pin, the facts; state in a 0700 directory, the credential 0600', async () => {
      const minted = await api('POST', '/enroll-tokens', {});
      stateDir = join(fx.dir, `state-${tag}`);
      const out = await ok(
        // The link on standard input (`-`): the process list never shows it.
        client(
          shell,
          ['enroll', '-', '--name', `sh ${tag}`, '--ca', fx.admin.certFile, ...st()],
          `${String(minted.body?.link)}\n`,
        ),
      );
      assert.match(out, /paddock-device: discovery: connecting to https:\/\/control\.test:\d+\n/);
      device = /enrolled as (d_[A-Za-z0-9_-]+) at https:\/\/control\.test:\d+; state in /.exec(out)?.[1] ?? '';
      assert.ok(device, out);
      assert.equal(((await stat(stateDir)).mode & 0o777).toString(8), '700');
      assert.equal(((await stat(join(stateDir, 'credential'))).mode & 0o777).toString(8), '600');
      const shown = await api('GET', `/devices/${device}`);
      assert.equal(shown.body?.name, `sh ${tag}`);
      const facts = shown.body?.facts as Record<string, string>;
      assert.equal(facts.client_version, 'sh-0.1.0');
      assert.equal(facts.os, process.platform);
      assert.equal(facts.arch, process.arch);
      assert.deepEqual(Object.keys(facts), ['arch', 'client_version', 'hostname', 'os', 'os_version']);

      // `facts` prints what it sent, key=value a line, as the Node client does (issue 45).
      const again = client(shell, ['facts', ...st()]);
      assert.match(await ok(again), /paddock-device: reported this device's facts\n/);
      assert.equal(
        again.stdout(),
        Object.entries(facts)
          .map(([k, v]) => `${k}=${v}\n`)
          .join(''),
      );
    });

    test("enroll with a token that needs approval: says the device waits for an administrator's approval", async () => {
      const minted = await api('POST', '/enroll-tokens', { approval: 'required' });
      const out = await ok(
        client(
          shell,
          ['enroll', '-', '--ca', fx.admin.certFile, '--state', join(fx.dir, `pending-${tag}`), ...RESOLVE],
          `${String(minted.body?.link)}\n`,
        ),
      );
      const id = /enrolled as (d_[A-Za-z0-9_-]+) at /.exec(out)?.[1] ?? '';
      assert.match(out, new RegExp(`enrolled as ${id}; waiting for an administrator's approval`));
      assert.equal((await api('GET', `/devices/${id}`)).body?.status, 'pending');
    });

    test('upload: each level applied on the device exactly as the reference client applies it', async () => {
      const text =
        'pressure=1.2 operator=alice from 10.1.2.3 to fe80::1\n{"password": "hunter2", "user": {\n "id": 7\n}, "n": 3}\nAuthorization: Bearer abc\nmail bob@example.com at 12:34:56';
      const file = join(fx.dir, `run-${tag}.txt`);
      await writeFile(file, text);
      for (const level of ['full', 'redacted', 'minimal'] as const) {
        const out = await ok(client(shell, ['upload', file, '--privacy', level, ...st()]));
        const id = /run (run-[0-9a-f]{24}) stored\n/.exec(out)?.[1] ?? '';
        assert.ok(id, out);
        const sent = applyPrivacy(new TextEncoder().encode(text), 'text/plain', level);
        assert.equal(await runBytes(device, id), new TextDecoder().decode(sent.body), level);
        const run = await api('GET', `/runs/${device}/${id}`);
        assert.equal(run.body?.privacy, level);
        assert.equal(run.body?.flagged, false, `the level check found nothing at ${level}`);
        assert.equal(run.body?.content_type, level === 'minimal' ? 'application/json' : 'text/plain; charset=utf-8');
      }
      const json = join(fx.dir, `run-${tag}.json`);
      await writeFile(json, '{"temp": 21, "ok": true, "owner_id": 5, "note": "x", "ratio": 0.25}\n');
      const out = await ok(client(shell, ['upload', json, '--privacy', 'minimal', '--id', `summary-${tag}`, ...st()]));
      assert.match(out, new RegExp(`run summary-${tag} stored`));
      assert.equal(
        await runBytes(device, `summary-${tag}`),
        '{"privacy":"minimal","bytes":68,"lines":1,"field.temp":21,"field.ok":true,"field.ratio":0.25}\n',
      );
      const repeat = await ok(
        client(shell, ['upload', json, '--privacy', 'minimal', '--id', `summary-${tag}`, ...st()]),
      );
      assert.match(repeat, new RegExp(`run summary-${tag} was already stored`));
      const bad = client(shell, ['upload', json, '--privacy', 'secret', ...st()]);
      assert.equal(await bad.exited, 2);
      assert.match(bad.stderr(), /--privacy must be full, redacted or minimal/);
    });

    test('watch --once: the command sees the request, its output fulfils it; a failing command declines it', async () => {
      const asked = await api('POST', '/collections', {
        devices: [device],
        privacy: 'redacted',
        reason: 'disk "check" \\ for é',
      });
      const failing = await api('POST', '/collections', { devices: [device], privacy: 'full', reason: 'crash' });
      // The failing command's standard error: invalid UTF-8, an escape, a carriage return, a NUL
      // and quotes; more than 3 KiB, so only its end is sent.
      const command =
        'if [ "$PADDOCK_REQUEST_REASON" = crash ]; then head -c 5000 /dev/zero | tr "\\000" x >&2; printf "\\n\\033[31mno \\"disk\\"\\377\\r\\000\\tend\\n" >&2; exit 3; fi; printf "%s|%s|%s operator=alice\\n" "$PADDOCK_REQUEST_ID" "$PADDOCK_REQUEST_PRIVACY" "$PADDOCK_REQUEST_REASON"';
      const out = await ok(client(shell, ['watch', '--once', '--collect', command, ...st()]));
      const [fulfilled] = await targets(String(asked.body?.id));
      assert.equal(fulfilled?.state, 'fulfilled', out);
      const request = /request (r_\d+) \(redacted, "disk \\"check\\" \\\\ for é"\): running the command/.exec(out)?.[1];
      assert.ok(request, out);
      assert.equal(
        await runBytes(device, String(fulfilled?.run)),
        `${request}|redacted|disk "check" \\ for é operator=[redacted]\n`,
      );
      const [declined] = await targets(String(failing.body?.id));
      assert.deepEqual([declined?.state, declined?.reason], ['declined', 'command exited with status 3']);
      const end = '\n?[31mno "disk"???\tend\n';
      assert.equal(declined?.stderr, `${'x'.repeat(3072 - end.length)}${end}`, 'the last 3 KiB, made printable');
      assert.match(out, /no "disk"/, "the command's standard error still reaches the client's");
      assert.match(await ok(client(shell, ['watch', '--once', '--collect', 'true', ...st()])), /no open requests/);
    });

    test('watch held open: answers at once, no credential on any command line, rotates when asked, stops on SIGTERM', async () => {
      const held = client(shell, ['watch', '--wait', '5', '--collect', 'echo held', ...st()]);
      await held.waitFor(/watching for requests/);
      await new Promise((r) => setTimeout(r, 400));
      const credential = (await readFile(join(stateDir, 'credential'), 'utf8')).trim();
      assert.ok(!(await commandLines()).includes(credential), 'the credential is on a command line');

      // The administrator asks for a rotation: the next answer carries Paddock-Rotate.
      assert.equal((await api('POST', `/devices/${device}/rotate`)).status, 204);
      const started = Date.now();
      const asked = await api('POST', '/collections', { devices: [device], privacy: 'full', reason: 'while held' });
      let target = (await targets(String(asked.body?.id)))[0];
      while (target?.state !== 'fulfilled' && Date.now() - started < 5_000) {
        await new Promise((r) => setTimeout(r, 100));
        target = (await targets(String(asked.body?.id)))[0];
      }
      assert.equal(target?.state, 'fulfilled', held.stderr());
      assert.ok(Date.now() - started < 4_000, `answered after ${Date.now() - started} ms`);
      assert.equal(await runBytes(device, String(target.run)), 'held\n');
      await held.waitFor(/rotated this device's credential/);
      const rotated = (await readFile(join(stateDir, 'credential'), 'utf8')).trim();
      assert.notEqual(rotated, credential);
      assert.equal(((await stat(join(stateDir, 'credential'))).mode & 0o777).toString(8), '600');

      held.kill('SIGTERM');
      assert.equal(await held.exited, 0, held.stderr());
      assert.match(held.stderr(), /SIGTERM: stopping/);

      // The new credential works; the old one is gone now that the new one was used.
      const file = join(fx.dir, `after-${tag}.txt`);
      await writeFile(file, `after rotation ${tag}\n`);
      assert.match(await ok(client(shell, ['upload', file, '--privacy', 'full', ...st()])), /stored/);
      await writeFile(join(stateDir, 'credential'), `${credential}\n`);
      const old = client(shell, ['upload', file, '--privacy', 'full', '--id', 'old-credential', ...st()]);
      assert.equal(await old.exited, 1);
      assert.match(old.stderr(), /upload refused: this device's credential is unknown or revoked/);
      // Presented again after its overlap, the old one made the device wait (reuse is theft).
      const waiting = await api('GET', `/devices/${device}`);
      assert.deepEqual([waiting.body?.status, waiting.body?.pending_reason], ['pending', 'credential reused']);
      assert.equal((await api('POST', `/devices/${device}/approve`)).status, 204);
      await writeFile(join(stateDir, 'credential'), `${rotated}\n`);
    });

    test('pins: a set that makes the next pin current is kept; one that drops it is refused; no pin matching gets exit 1', async () => {
      const held = (await readFile(join(stateDir, 'pins'), 'utf8')).trim().split('\n');
      const [served = ''] = held;
      const other = `sha256/${Buffer.alloc(32, 7).toString('base64')}`;
      // Held [other, served]: the server's set [served] makes the next pin current (a rotation).
      await writeFile(join(stateDir, 'pins'), `${other}\n${served}\n`);
      const out = await ok(client(shell, ['facts', ...st()]));
      assert.match(out, /the control key's pins are now sha256\//);
      assert.deepEqual((await readFile(join(stateDir, 'pins'), 'utf8')).trim().split('\n'), held);

      // Held [served, other]: the server's set drops the next pin (section 23). Refused, said in
      // one line, and the run goes on.
      await rm(join(stateDir, 'retired_pins'));
      await rm(join(stateDir, 'retired_until'));
      await writeFile(join(stateDir, 'pins'), `${served}\n${other}\n`);
      const refused = await ok(client(shell, ['facts', ...st()]));
      assert.equal(
        refused,
        `paddock-device: updating the control key's pins: the set drops the next pin held, ${other}, without making it current; the pins held are kept\npaddock-device: reported this device's facts\n`,
      );
      assert.equal(await readFile(join(stateDir, 'pins'), 'utf8'), `${served}\n${other}\n`);
      assert.deepEqual(
        (await readdir(stateDir)).filter((f) => f.startsWith('retired')),
        [],
      );

      // Without the set it replaced (trusted for 90 s after an update), nothing matches.
      await writeFile(join(stateDir, 'pins'), `${other}\n`);
      const mismatch = client(shell, ['facts', ...st()]);
      assert.equal(await mismatch.exited, 1);
      assert.match(mismatch.stderr(), /pin mismatch: .*nothing was sent.*needs a new enrollment link/);
      await writeFile(join(stateDir, 'pins'), `${held.join('\n')}\n`);
    });

    test("pins: the sh client's rule is the reference's (pin_set.ts), case by case", () => {
      const fn = /^pin_set_refusal\(\) \{\n[\s\S]*?\n\}\n/m.exec(readFileSync(SCRIPT, 'utf8'))?.[0] ?? '';
      assert.ok(fn, 'pin_set_refusal was found in the script');
      const pin = (letter: string) => `sha256/${Buffer.alloc(32, letter.charCodeAt(0)).toString('base64')}`;
      // held -> offered, current first: A the current pin held, B the next, C a new one.
      for (const [held, offered] of ['AB AC', 'AB A', 'AB BA', 'AB BC', 'AB B', 'AB CB', 'AB AB', 'A AC', 'A CA']
        .map((c) => c.split(' ').map((set) => [...set].map(pin)))
        .map(([h = [], o = []]) => [h, o] as const)) {
        const [cmd = 'sh', ...pre] = shell.argv();
        const r = spawnSync(
          cmd,
          [...pre, '-c', `${fn}pin_set_refusal "$1" "$2"`, 'sh', held.join('\n'), offered.join('\n')],
          { encoding: 'utf8', env: { PATH: shell.path() } },
        );
        const why = pinSetRefusal(held, offered);
        assert.deepEqual(
          [r.status, r.stdout],
          why === undefined ? [1, ''] : [0, why],
          `${held.join()} -> ${offered.join()}`,
        );
      }
    });

    test("state directory: one its group or others may write, or another user's, is refused (exit 1) before anything is read or sent", async () => {
      const refusal = (dir: string, why: string) =>
        new RegExp(
          `^paddock-device: device state ${dir}: the directory ${why} \\(another user could replace the state\\)\n$`,
        );
      for (const [mode, shown] of [
        [0o777, 'drwxrwxrwx'],
        [0o770, 'drwxrwx---'],
        [0o702, 'drwx----w-'],
      ] as const) {
        await chmod(stateDir, mode);
        const r = client(shell, ['facts', ...st()]);
        assert.equal(await r.exited, 1, r.stderr());
        assert.match(
          r.stderr(),
          refusal(
            stateDir,
            `may be written by its group or others \\(${shown}\\); chmod go-w ${stateDir}, or use a directory of your own`,
          ),
        );
      }
      await chmod(stateDir, 0o700);
      if (process.getuid?.() === 0) {
        await chown(stateDir, 65534, 65534);
        const r = client(shell, ['upload', SCRIPT, '--privacy', 'minimal', ...st()]);
        assert.equal(await r.exited, 1, r.stderr());
        assert.match(
          r.stderr(),
          refusal(stateDir, 'belongs to uid 65534, not to this user \\(uid 0\\); use a directory of your own'),
        );
        await chown(stateDir, 0, 0);
      }
      assert.match(await ok(client(shell, ['facts', ...st()])), /reported this device's facts/);

      // Enrollment checks an existing directory before it spends the link's token.
      const minted = await api('POST', '/enroll-tokens', {});
      const open = join(fx.dir, `open-${tag}`);
      await mkdir(open, { mode: 0o777 });
      await chmod(open, 0o777);
      const link = `${String(minted.body?.link)}\n`;
      const enroll = () => client(shell, ['enroll', '-', '--ca', fx.admin.certFile, '--state', open, ...RESOLVE], link);
      const refused = enroll();
      assert.equal(await refused.exited, 1, refused.stderr());
      assert.match(
        refused.stderr(),
        refusal(
          open,
          'may be written by its group or others \\(drwxrwxrwx\\); chmod go-w [^ ]+, or use a directory of your own',
        ),
      );
      assert.deepEqual(await readdir(open), []);
      await chmod(open, 0o755);
      assert.match(await ok(enroll()), /enrolled as d_/);
      assert.equal(((await stat(open)).mode & 0o777).toString(8), '700');
    });

    test('exit codes: 2 for a usage mistake or a bad link, 3 unreachable, 1 once revoked', async () => {
      const usage = client(shell, ['watch', '--once', '--wait', '3', '--collect', 'true', ...st()]);
      assert.equal(await usage.exited, 2);
      assert.match(usage.stderr(), /--wait and --once do not go together/);
      const link = client(shell, ['enroll', 'paddock://enroll?server=x.test&pin=sha256/short&token=t', ...st()]);
      assert.equal(await link.exited, 2);
      assert.match(link.stderr(), /enrollment link: pin must be sha256\//);

      const gone = join(fx.dir, `gone-${tag}`);
      await mkdir(gone);
      for (const name of ['credential', 'device', 'pins'])
        await writeFile(join(gone, name), await readFile(join(stateDir, name)));
      await writeFile(join(gone, 'control_url'), `https://control.test:${await freePort()}\n`);
      const unreachable = client(shell, ['watch', '--once', '--collect', 'true', '--state', gone, ...RESOLVE]);
      assert.equal(await unreachable.exited, 3);
      assert.match(unreachable.stderr(), /cannot reach https:\/\/control\.test:\d+/);
      // Held, it waits after each error (1 s doubling, a random half to whole of it) and stops at once.
      const retrying = client(shell, ['watch', '--collect', 'true', '--state', gone, ...RESOLVE]);
      await retrying.waitFor(/cannot reach https:\/\/control\.test:\d+: .*; asking again in (0\.[5-9]|1\.0) s\n/);
      await retrying.waitFor(/asking again in (1\.[0-9]|2\.0) s\n/);
      const stopped = Date.now();
      retrying.kill('SIGTERM');
      assert.equal(await retrying.exited, 0, retrying.stderr());
      assert.ok(Date.now() - stopped < 1_500, `stopped after ${Date.now() - stopped} ms`);

      assert.equal((await api('POST', `/devices/${device}/revoke`)).status, 204);
      const revoked = client(shell, ['watch', '--wait', '2', '--collect', 'true', ...st()]);
      assert.equal(await revoked.exited, 1);
      assert.match(revoked.stderr(), /credential is unknown or revoked .*; watch stopped \(enroll again/);
    });
  });
}
