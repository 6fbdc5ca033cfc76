// docs/contract.md section 2: `paddock --help` and `paddock <verb> --help` print usage naming the verb
// on stdout and exit 0 (without doing the verb's work); an unknown verb or sub-verb exits
// non-zero with a usage hint.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { paddock } from '../support/process.ts';

const helps: Array<{ args: string[]; names: RegExp }> = [
  {
    args: ['--help'],
    names: /^Usage: paddock <command>[\s\S]*serve[\s\S]*set-admin-password[\s\S]*device[\s\S]*\n {2}collections +ask/,
  },
  { args: ['-h'], names: /^Usage: paddock <command>/ },
  { args: ['serve', '--help'], names: /^Usage: paddock serve\b/ },
  { args: ['serve', '-h'], names: /^Usage: paddock serve\b/ },
  { args: ['set-admin-password', '--help'], names: /^Usage: paddock set-admin-password\b/ },
  { args: ['reset-admin-totp', '--help'], names: /^Usage: paddock reset-admin-totp\n[\s\S]*Exit status: 0/ },
  { args: ['device', '--help'], names: /paddock device enroll[\s\S]*paddock device upload[\s\S]*paddock device watch/ },
  { args: ['device', 'enroll', '--help'], names: /paddock device enroll <link \| ->/ },
  { args: ['device', 'upload', '--help'], names: /paddock device upload <file>/ },
  { args: ['device', 'watch', '--help'], names: /paddock device watch --collect COMMAND \[--wait SECONDS \| --once\]/ },
  { args: ['devices', '--help'], names: /paddock devices list[\s\S]*paddock devices revoke ID[\s\S]*Exit codes/ },
  { args: ['enroll-tokens', 'mint', '--help'], names: /paddock enroll-tokens mint \[--uses N\]/ },
  { args: ['runs', '-h'], names: /paddock runs raw DEVICE ID/ },
  { args: ['audit', '--help'], names: /paddock audit list \[--actor/ },
  {
    args: ['collections', '--help'],
    names:
      /paddock collections list \[--state open\|closed\][\s\S]*paddock collections create \(--device ID… \|[\s\S]*--privacy full\|redacted\|minimal --reason TEXT[\s\S]*\[--expires-in DURATION\] \[--wait\][\s\S]*paddock collections show ID[\s\S]*paddock collections cancel ID[\s\S]*Exit codes/,
  },
  { args: ['collections', 'create', '-h'], names: /--wait says on stderr how far it got/ },
  { args: ['check', '--help'], names: /^Usage: paddock check\n[\s\S]*Exit codes: 0/ },
  { args: ['backup', '--help'], names: /^Usage: paddock backup FILE/ },
  { args: ['restore', '-h'], names: /^Usage: paddock restore FILE/ },
];

for (const { args, names } of helps) {
  test(`paddock ${args.join(' ')}: usage naming the verb on stdout, exit 0, nothing done`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paddock-help-'));
    try {
      // Were the verb run instead of its help, serve would create the data directory and
      // set-admin-password would wait for stdin (and then fail on the empty input).
      const p = paddock(
        args,
        { PADDOCK_DATA_DIR: join(dir, 'data'), PADDOCK_LISTEN: '127.0.0.1:0' },
        args[0] === 'set-admin-password' ? 'a password that must not be stored\n' : undefined,
      );
      const code = await p.exited;
      const { stdout, stderr } = p.output();
      assert.equal(code, 0, stderr);
      assert.match(stdout, names);
      assert.equal(stderr, '');
      assert.deepEqual(await readdir(dir), [], 'the help did not touch the data directory');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

// Usage mistakes exit 2 with one line on stderr, naming the nearest command where one is near.
const refusals: Array<{ args: string[]; hint: RegExp }> = [
  { args: ['launch'], hint: /^paddock: unknown command "launch" \(see paddock --help\)\n$/ },
  { args: ['serv'], hint: /^paddock: unknown command "serv"; did you mean "serve"\? \(see paddock --help\)\n$/ },
  { args: ['--serve'], hint: /^paddock: unknown command "--serve"; did you mean "serve"\? \(see paddock --help\)\n$/ },
  { args: ['serve', '--bogus'], hint: /^paddock serve: unknown option --bogus \(see paddock serve --help\)\n$/ },
  { args: ['device', 'reboot'], hint: /^paddock device: unknown command "reboot" \(see paddock device --help\)\n$/ },
  { args: ['device', 'enroll'], hint: /paddock device enroll <link \| ->/ },
  { args: ['device', 'watch'], hint: /^paddock device: watch needs --collect COMMAND/ },
  { args: ['device', 'watch', '--collect', 'true', '--wait', '61'], hint: /--wait must be whole seconds from 1 to 60/ },
  { args: ['device', 'watch', '--collect', 'true', '--once', '--wait', '5'], hint: /--wait and --once do not go/ },
  { args: ['device'], hint: /paddock device enroll <link \| ->/ },
  { args: [], hint: /^Usage: paddock <command>/ },
  { args: ['devices'], hint: /^Usage:\n {2}paddock devices list/ },
  {
    args: ['devices', 'lst'],
    hint: /^paddock devices: unknown command "lst"; did you mean "list"\? \(see paddock devices --help\)\n$/,
  },
  { args: ['runs', 'get', 'd_only'], hint: /^paddock runs: usage: paddock runs get DEVICE ID\n$/ },
  { args: ['collections'], hint: /^Usage:\n {2}paddock collections list/ },
  {
    args: ['collections', 'cancle'],
    hint: /^paddock collections: unknown command "cancle"; did you mean "cancel"\? \(see paddock collections --help\)\n$/,
  },
];
for (const { args, hint } of refusals) {
  test(`paddock ${args.join(' ') || '(no verb)'}: exit 2 with a usage hint on stderr`, async () => {
    const p = paddock(args, { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: '/nonexistent/paddock-help' });
    const code = await p.exited;
    assert.equal(code, 2, p.output().stderr);
    assert.match(p.output().stderr, hint);
    assert.equal(p.output().stdout, '');
  });
}

test('paddock --help prints every setting of the table with its help and default, within 100 columns', async () => {
  const { settings } = await import('../../src/config/variables.ts');
  const p = paddock(['--help'], {});
  assert.equal(await p.exited, 0);
  const { stdout } = p.output();
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  for (const row of Object.values(settings)) {
    const otherwise = 'default' in row ? row.default : row.unset;
    // A long help is wrapped between words onto lines of its own, under the help column.
    const help = escape(row.help).replaceAll(' ', '(?: |\\n {4,})');
    const fallback = escape(otherwise).replaceAll(' ', '(?: |\\n {4,})');
    assert.match(stdout, new RegExp(`\\n  ${row.variable} +${help}\\n +default: ${fallback}\\n`));
  }
  for (const line of stdout.split('\n')) assert.ok([...line].length <= 100, line);
});
