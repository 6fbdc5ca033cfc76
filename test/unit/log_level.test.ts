// The JSON-lines logger of docs/contract.md section 8 and PADDOCK_LOG_LEVEL (section 3): records below
// the configured level are dropped, those at or above it are written, one JSON object a line,
// each with time, level and event besides its own fields; the default level is info. The line
// writer (jsonLines) takes any record; the log (jsonLogger) writes each catalogue event at its level.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENTS } from '../../src/events/catalogue.ts';
import { jsonLines, jsonLogger, type Level } from '../../src/log/logger.ts';

const LEVELS: Level[] = ['debug', 'info', 'warn', 'error'];
const NOW = Date.UTC(2026, 10, 22, 12, 34, 56, 789);

/** Logs one record at every level through a logger at `min`; returns the lines written. */
function writeAll(min: Level | undefined): string[] {
  const lines: string[] = [];
  const write = jsonLines(
    min,
    (line) => lines.push(line),
    () => NOW,
  );
  for (const level of LEVELS) write(level, `test.${level}`, { n: LEVELS.indexOf(level), who: 'local:admin' });
  return lines;
}

const table: Array<{ min: Level | undefined; written: Level[] }> = [
  { min: 'debug', written: ['debug', 'info', 'warn', 'error'] },
  { min: 'info', written: ['info', 'warn', 'error'] },
  { min: 'warn', written: ['warn', 'error'] },
  { min: 'error', written: ['error'] },
  { min: undefined, written: ['info', 'warn', 'error'] },
];

for (const { min, written } of table) {
  test(`level ${min ?? '(default)'}: writes ${written.join(', ')} and drops the rest`, () => {
    const lines = writeAll(min);
    assert.equal(lines.length, written.length, JSON.stringify(lines));
    const records = lines.map((line) => {
      assert.ok(line.endsWith('\n'), 'each record ends its line');
      assert.equal(line.indexOf('\n'), line.length - 1, 'one record a line');
      return JSON.parse(line) as Record<string, unknown>;
    });
    assert.deepEqual(
      records.map((r) => r.level),
      written,
    );
    for (const r of records) {
      assert.equal(r.time, '2026-11-22T12:34:56.789Z', 'time is the clock, as ISO 8601 UTC');
      assert.equal(r.event, `test.${String(r.level)}`);
      assert.equal(r.n, LEVELS.indexOf(r.level as Level));
      assert.equal(r.who, 'local:admin');
    }
  });
}

test('every line parses as an object whose first members are time, level and event', () => {
  const lines: string[] = [];
  const logger = jsonLogger(
    'warn',
    (line) => lines.push(line),
    () => NOW,
  );
  void logger.emit(EVENTS.accessAdminRefused, { account: 'oidc:u', path: '/enroll-tokens' });
  void logger.emit(EVENTS.loginLocalSucceeded, { user: 'admin', client: '127.0.0.1', method: 'local' });
  void logger.emit(EVENTS.storeUnavailable, { error: 'down', path: '/' });
  assert.equal(lines.length, 2);
  const [refused, unavailable] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(Object.keys(refused ?? {}).slice(0, 3), ['time', 'level', 'event']);
  assert.deepEqual(refused, {
    time: '2026-11-22T12:34:56.789Z',
    level: 'warn',
    event: 'access.admin_refused',
    account: 'oidc:u',
    path: '/enroll-tokens',
  });
  assert.deepEqual(unavailable, {
    time: '2026-11-22T12:34:56.789Z',
    level: 'error',
    event: 'store.unavailable',
    error: 'down',
    path: '/',
  });
});

test('the default writer is stdout, one line a record', (t) => {
  const written: string[] = [];
  t.mock.method(process.stdout, 'write', (chunk: string) => (written.push(chunk), true));
  const logger = jsonLogger('warn');
  void logger.emit(EVENTS.serverStarted, { listen: 'http://127.0.0.1:1', base_url: '', version: '1' });
  void logger.emit(EVENTS.sweeperFailed, { error: 'x' });
  t.mock.restoreAll();
  assert.equal(written.length, 1);
  const record = JSON.parse(written[0] ?? '') as Record<string, unknown>;
  assert.equal(record.event, 'sweeper.failed');
  assert.equal(record.level, 'error');
  assert.match(String(record.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('a field named like a head key cannot overwrite time, level or event', () => {
  const lines: string[] = [];
  jsonLines(
    'info',
    (line) => lines.push(line),
    () => NOW,
  )('warn', 'real.event', {
    event: 'forged',
    level: 'debug',
    time: 'never',
    extra: 1,
  });
  assert.deepEqual(JSON.parse(lines[0] ?? '{}'), {
    time: '2026-11-22T12:34:56.789Z',
    level: 'warn',
    event: 'real.event',
    extra: 1,
  });
});

test('no event of the catalogue has a field named like a head key (it would never be written)', () => {
  for (const entry of Object.values(EVENTS))
    for (const head of ['time', 'level', 'event']) assert.ok(!(head in entry.fields), `${entry.name}: ${head}`);
});
