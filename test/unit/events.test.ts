// The event catalogue (src/events/catalogue.ts) is the one list of events (docs/contract.md sections 8 and
// 13): no event name is written as a string anywhere else in src/, every entry is emitted, every
// audited emit is awaited (so a full audit queue holds the action), and the README's event table
// is the catalogue.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { CATALOGUE, EVENTS, eventNamed, type AnyEvent, type EventEntry } from '../../src/events/catalogue.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Every TypeScript file under src/ but src/events/, with its text. */
function sources(): Array<{ file: string; text: string }> {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(ROOT, 'src', f))
    .filter((f) => !relative(join(ROOT, 'src'), f).startsWith('events/'));
  assert.ok(files.length > 50, 'the scan sees the source tree');
  return files.map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAMES = new RegExp(`['"\`](${CATALOGUE.map((e) => escape(e.name)).join('|')})['"\`]`, 'g');

/** The catalogue names written as string literals in `text` (comments, which document, are skipped), with their lines. */
function bareNames(text: string): string[] {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|\s)\/\/.*$/gm, '$1');
  return [...code.matchAll(NAMES)].map((m) => `${code.slice(0, m.index).split('\n').length} ${m[0]}`);
}

test('no event name is written as a string literal in src/ outside src/events/', () => {
  const found = sources().flatMap(({ file, text }) => bareNames(text).map((hit) => `${file}:${hit}`));
  assert.deepEqual(found, [], 'write EVENTS.<key> (src/events/catalogue.ts) instead');
});

test('the scan sees a bare name in any quotes, and not in a comment', () => {
  const text = [
    "log('device.revoked');",
    'const a = "run.deleted";',
    'const b = `login.local.failed`; // `device.deleted` in a comment',
    '/** `runs.swept` documented */',
    "const c = 'device.revoked.not';",
  ].join('\n');
  assert.deepEqual(bareNames(text), ["1 'device.revoked'", '2 "run.deleted"', '3 `login.local.failed`']);
  const catalogue = readFileSync(join(ROOT, 'src/events/catalogue.ts'), 'utf8');
  assert.equal(bareNames(catalogue).length, CATALOGUE.length, 'each name once, in the catalogue');
});

test('every entry is emitted somewhere in src/, and every audited emit is awaited', () => {
  const all = sources();
  const unawaited: string[] = [];
  for (const [key, entry] of Object.entries(EVENTS)) {
    const uses = all.flatMap(({ file, text }) =>
      [...text.matchAll(new RegExp(`(await\\s+)?[\\w.]*\\.(emit|hear)\\(\\s*EVENTS\\.${key}\\b`, 'g'))].map((m) => ({
        file,
        awaited: m[1] !== undefined,
        hear: m[2] === 'hear',
      })),
    );
    assert.ok(uses.length > 0, `${entry.name} (EVENTS.${key}) is never emitted: remove its entry`);
    if (entry.audited)
      for (const use of uses.filter((u) => !u.awaited && !u.hear)) unawaited.push(`${use.file}: EVENTS.${key}`);
  }
  assert.deepEqual(unawaited, [], 'an audited emit must be awaited, so a full audit queue holds the action');
});

test("each constant's key is its name in camel case, and names are unique", () => {
  const camel = (name: string) => name.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase());
  for (const [key, entry] of Object.entries(EVENTS)) assert.equal(key, camel(entry.name));
  assert.equal(new Set(CATALOGUE.map((e) => e.name)).size, CATALOGUE.length);
  for (const entry of CATALOGUE) assert.equal(eventNamed(entry.name), entry);
  assert.equal(eventNamed('no.such_event'), undefined);
});

test('docs/contract.md section 8: its events, levels and fields are in the catalogue', () => {
  const section8: Array<[AnyEvent, string[]]> = [
    [EVENTS.loginLocalFailed, ['user', 'client']],
    [EVENTS.loginLocalSucceeded, ['user', 'client', 'method']],
    [EVENTS.loginOidcExchangeFailed, ['client', 'error']],
    [EVENTS.loginOidcTokenRejected, ['client', 'error']],
    [EVENTS.loginOidcSucceeded, ['account', 'method', 'admin', 'client']],
    [EVENTS.accessAdminRefused, ['account', 'path']],
    [EVENTS.deviceRevoked, ['account', 'device']],
    [EVENTS.runDeleted, ['account', 'device', 'run']],
    [EVENTS.enrollTokenMinted, ['account', 'owner']],
  ];
  for (const [entry, fields] of section8) {
    assert.ok(entry.audited, entry.name);
    for (const field of fields)
      assert.ok(
        field in entry.fields && !String((entry.fields as Record<string, string>)[field]).endsWith('?'),
        `${entry.name}: ${field}`,
      );
  }
});

/** Whether webhooks carry an entry, as the README's table says it. */
function webhookCell(entry: AnyEvent): string {
  const webhook: EventEntry['webhook'] = 'webhook' in entry ? entry.webhook : undefined;
  return webhook === 'all' ? 'yes' : webhook === 'opt-in' ? 'when named' : 'no';
}

/** One README row of an entry: `| event | level | fields | audited | webhooks | what |`. */
function readmeRow(entry: AnyEvent): string {
  const fields = Object.entries(entry.fields as Record<string, string>)
    .map(([name, kind]) => `\`${name}: ${kind}\``)
    .join(', ');
  const from: EventEntry['auditAccount'] = 'auditAccount' in entry ? entry.auditAccount : undefined;
  const account = from ? ` (account \`${from.prefix}<${from.field}>\`)` : '';
  const audited = entry.audited ? `yes${account}` : 'no';
  return `| \`${entry.name}\` | ${entry.level} | ${fields || '—'} | ${audited} | ${webhookCell(entry)} | ${entry.help} |`;
}

test("the README's event table is the catalogue, row for row", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n| event | level | fields | audited | webhooks | what |\n');
  assert.ok(start >= 0, 'README.md has the event table');
  const lines = readme.slice(start + 1).split('\n');
  const end = lines.findIndex((line) => !line.startsWith('|'));
  const rows = lines.slice(2, end);
  const want = CATALOGUE.map(readmeRow);
  assert.deepEqual(rows, want, `the README's table should read:\n${want.join('\n')}`);
});
