// Security review finding 5 (issue 34): a failed break-glass sign-in's username, which may hold CR
// and LF, reached the audit trail's syslog messages as it came, since RFC 5424 escapes only `"`,
// `\` and `]` in a PARAM-VALUE. Pinned here: the frame builder writes no control character, line
// break or bidi override, in the structured data or anywhere else; the JSON-lines log writes one
// line a record; and end to end, POST /login with a forged record in its username reaches the
// store as it came, the JSONL export one line a record, and a collector (a socket that keeps the
// bytes, and rsyslogd where it is installed) one message that says what the username held.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { SYSLOG_POSITION, syslogForwarder } from '../../src/audit/syslog_forwarder.ts';
import { headerField, octetCounted, SD_ID, sdEscape, sdName, syslogMessage } from '../../src/audit/syslog_message.ts';
import { systemClock } from '../../src/clock.ts';
import { parseSyslogTarget } from '../../src/config/parse.ts';
import type { AuditRecord } from '../../src/domain/audit.ts';
import { EVENTS } from '../../src/events/catalogue.ts';
import { jsonLogger, memoryLogger } from '../../src/log/logger.ts';
import { logJson, logText } from '../../src/log/log_text.ts';
import { form, harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';
import { collector, rsyslogMissing } from '../support/rsyslog.ts';

/** The finding's username: a line break, then a whole RFC 5424 record from another host. */
const FORGED = 'x\r\n<13>1 2026-01-01T00:00:00Z evil paddock - - - forged';
/** How logText writes it: the same characters, the line break as the two escapes `\r` and `\n`. */
const FORGED_TEXT = String.raw`x\r\n<13>1 2026-01-01T00:00:00Z evil paddock - - - forged`;

/**
 * The oracle, written out apart from the code under test: C0, DEL, C1, the line and paragraph
 * separators, zero-width and direction marks, bidi embeddings, overrides and isolates, and the BOM.
 */
const UNSEEN = /[\0-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

const ORIGIN = { hostname: 'paddock-test', procid: '4242' };

function record(more: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: Date.UTC(2026, 0, 2, 3, 4, 5),
    event: 'login.local.failed',
    account: `local:${FORGED}`,
    client: '203.0.113.7',
    device: null,
    run: null,
    detail: `user=${FORGED}`,
    ...more,
  };
}

/** A PARAM-VALUE as a collector reads it (RFC 5424 section 6.3.3): `\"`, `\\` and `\]` unescaped. */
function sdUnescape(value: string): string {
  return value.replace(/\\(["\\\]])/g, '$1');
}

/** The PARAM-VALUEs of a message's one SD-ELEMENT, as written (escaped). */
function sdParams(message: string): Record<string, string> {
  const params: Record<string, string> = {};
  const element = message.slice(message.indexOf(`[${SD_ID} `), message.indexOf('] {') + 1);
  for (const [, name, value] of element.matchAll(/ ([^=\s]+)="((?:\\.|[^"\\])*)"/g)) params[name ?? ''] = value ?? '';
  return params;
}

/** What logText wrote, read back: its escapes are JavaScript's. */
function unText(text: string): string {
  return text.replace(/\\(?:u\{([0-9a-f]+)\}|u([0-9a-f]{4})|(.))/g, (_, astral?: string, bmp?: string, c?: string) => {
    if (astral !== undefined) return String.fromCodePoint(parseInt(astral, 16));
    if (bmp !== undefined) return String.fromCharCode(parseInt(bmp, 16));
    return ({ n: '\n', r: '\r', t: '\t' } as Record<string, string>)[c ?? ''] ?? c ?? '';
  });
}

/** The messages of an octet-counted stream (RFC 6587 section 3.4.1). */
function unframe(stream: Buffer): string[] {
  const messages: string[] = [];
  let at = 0;
  while (at < stream.length) {
    const space = stream.indexOf(0x20, at);
    const length = Number(stream.subarray(at, space).toString('ascii'));
    assert.ok(Number.isInteger(length) && length > 0, `a frame length at byte ${at}`);
    messages.push(stream.subarray(space + 1, space + 1 + length).toString('utf8'));
    at = space + 1 + length;
  }
  return messages;
}

/** A collector that keeps the bytes it is sent, and closes when the sender does. */
async function byteCollector() {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    messages: () => unframe(Buffer.concat(chunks)),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const FAST = { pollMs: 50, settleMs: 200, backoffMs: 100, maxBackoffMs: 400 };

/** Sends the harness's trail to a collector on `port` until `done` holds, then stops. */
async function forward(h: Harness, port: number, done: () => Promise<boolean>): Promise<void> {
  const f = syslogForwarder({
    store: h.store,
    logger: memoryLogger(),
    clock: systemClock,
    target: parseSyslogTarget(`tcp://127.0.0.1:${port}`),
    origin: ORIGIN,
    tuning: FAST,
  });
  f.start();
  try {
    const end = Date.now() + 15_000;
    while (!(await done())) {
      if (Date.now() > end) throw new Error('timed out waiting for the collector');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await f.stop();
  }
}

/** A harness in which the forged username has failed to sign in, its record stored. */
async function forgedSignIn(): Promise<Harness> {
  const h = await harness();
  const res = await h.request('/login', form({ username: FORGED, password: 'not the password' }));
  assert.equal(res.status, 401);
  await h.flushAudit();
  return h;
}

test('finding: a username with CR and LF cannot forge a syslog record or an audit line', async () => {
  const h = await forgedSignIn();
  const c = await byteCollector();
  try {
    // The trail holds the username as it came: the escaping belongs to each sink, not the record.
    const stored = (await h.store.auditPage({}, { limit: 10 })).items;
    assert.deepEqual(
      stored.map((r) => [r.event, r.account, r.detail]),
      [['login.local.failed', `local:${FORGED}`, `user=${FORGED} count=1`]],
    );

    // The JSONL export: one line a record, which parses back to the value.
    const res = await h.request('/audit.jsonl', { headers: { cookie: h.signIn(ACCOUNTS.admin).cookie } });
    const body = await res.text();
    assert.ok(!UNSEEN.test(body.slice(0, -1)), `no raw control or line break in ${JSON.stringify(body)}`);
    const lines = body.split('\n');
    assert.equal(lines.pop(), '', 'the export ends its last line');
    assert.equal(lines.length, 1, 'one line for the one record');
    const line = JSON.parse(lines[0] ?? '') as AuditRecord;
    assert.equal(line.account, `local:${FORGED}`);
    assert.equal(line.detail, `user=${FORGED} count=1`);

    // The collector: one message, with no control in it, its structured data escaped.
    await forward(h, c.port, async () => (await h.store.auditForwarded(SYSLOG_POSITION)).seq >= 1);
    const messages = c.messages();
    assert.equal(messages.length, 1, `one message, not a forged second: ${JSON.stringify(messages)}`);
    const message = messages[0] ?? '';
    assert.ok(!UNSEEN.test(message), `no raw CR, LF, NUL or other control in ${JSON.stringify(message)}`);
    assert.match(message, /^<84>1 2\S+ paddock-test paddock 4242 login\.local\.failed \[paddock@32473 seq="1" /);
    const params = sdParams(message);
    assert.equal(params.account, `local:${FORGED_TEXT}`);
    assert.equal(params.detail, `user=${FORGED_TEXT} count=1`);
    const msg = JSON.parse(message.slice(message.indexOf('] {') + 2)) as AuditRecord;
    assert.equal(msg.detail, `user=${FORGED} count=1`, 'MSG holds the exact value, JSON-escaped');
  } finally {
    await c.close();
    await h.close();
  }
});

describe('finding: through a real collector (rsyslogd)', { skip: rsyslogMissing() }, () => {
  test('a username with CR and LF arrives as one message that shows the line break', async () => {
    const h = await forgedSignIn();
    const c = await collector();
    await c.start();
    try {
      await forward(h, c.port, async () => (await c.received()).length >= 1);
      await new Promise((r) => setTimeout(r, 300));
      const got = await c.received();
      assert.equal(got.length, 1, `one message: ${JSON.stringify(got)}`);
      const [m] = got;
      assert.equal(m?.hostname, 'paddock-test');
      assert.equal(m?.msgid, 'login.local.failed');
      assert.deepEqual(m?.fields[SD_ID], {
        seq: '1',
        account: `local:${FORGED_TEXT}`,
        client: '203.0.113.7',
        detail: `user=${FORGED_TEXT} count=1`,
      });
      assert.equal((JSON.parse(m?.msg ?? '') as AuditRecord).detail, `user=${FORGED} count=1`);
    } finally {
      await c.dispose();
      await h.close();
    }
  });
});

const CHARACTERS: Array<[string, string]> = [
  ['NUL', '\0'],
  ['tab', '\t'],
  ['line feed', '\n'],
  ['carriage return', '\r'],
  ['terminal escape sequence', '\x1b[2J'],
  ['DEL', '\x7f'],
  ['next line (C1)', '\x85'],
  ['control sequence introducer (C1)', '\x9b'],
  ['line separator', '\u2028'],
  ['paragraph separator', '\u2029'],
  ['right-to-left override', '\u202e'],
  ['left-to-right isolate', '\u2066'],
  ['pop directional isolate', '\u2069'],
  ['zero-width space', '\u200b'],
  ['byte order mark', '\ufeff'],
];

for (const [name, c] of CHARACTERS) {
  test(`finding: a ${name} in any value reaches no syslog frame as it is`, () => {
    const value = `a${c}b "q" ]\\`;
    const r = record({ account: `local:${value}`, client: value, device: value, run: value, detail: `user=${value}` });
    const message = syslogMessage(r, 7, ORIGIN);
    assert.ok(!UNSEEN.test(message), JSON.stringify(message));
    assert.ok(!UNSEEN.test(octetCounted(message).toString('utf8')));
    const params = sdParams(message);
    for (const field of ['client', 'device', 'run'] as const) {
      const written = params[field] ?? '';
      assert.equal(unText(written), value, `${field}: each escape on the wire is unambiguous`);
      const shown = value.replace(new RegExp(UNSEEN.source, 'gu'), logText);
      assert.equal(sdUnescape(written), shown, `${field}: a collector reads the value, ${name} shown as an escape`);
    }
  });
}

test('finding: an escape typed into a value is not read as the character it names', () => {
  assert.notEqual(sdEscape('a\\nb'), sdEscape('a\nb'));
  assert.equal(sdEscape('a\\nb'), String.raw`a\\nb`);
  assert.equal(sdEscape('a\nb'), String.raw`a\nb`);
  assert.equal(logText('\\u000a'), String.raw`\\u000a`);
  assert.equal(logText('\u0000'), String.raw`\u0000`);
  const values = ['plain', 'caf\u00e9 \u{1F600}', 'a\\nb', 'a\nb', '\\\\', '\u202enimda', '\u{E0041}', '\ud800'];
  for (const value of values) assert.equal(unText(logText(value)), value, JSON.stringify(value));
  assert.equal(logText('caf\u00e9 \u{1F600}'), 'caf\u00e9 \u{1F600}', 'what is visible stays readable');
});

test('finding: header fields are printable ASCII and SD-NAMEs are checked', () => {
  assert.equal(headerField(FORGED, 255), 'x<13>12026-01-01T00:00:00Zevilpaddock---forged');
  assert.equal(headerField('\r\n', 255), '-');
  const message = syslogMessage(record(), 1, { hostname: 'evil\r\nhost', procid: '1\n2' });
  assert.match(message, /^<84>1 \S+ evilhost paddock 12 login\.local\.failed \[/);
  assert.equal(sdName(SD_ID), SD_ID);
  for (const bad of ['', 'a b', 'a=b', 'a]', 'a"', 'a\n', 'x'.repeat(33), 'caf\u00e9'])
    assert.throws(() => sdName(bad), TypeError, JSON.stringify(bad));
});

test('finding: the JSON-lines log writes a forged username as one line that parses back to it', () => {
  const lines: string[] = [];
  const user = `${FORGED}\u2028\u202e\x85\x1b[2J`;
  void jsonLogger('info', (line) => lines.push(line)).emit(EVENTS.loginLocalFailed, { user, client: '203.0.113.7' });
  assert.equal(lines.length, 1);
  const line = lines[0] ?? '';
  assert.equal(line.indexOf('\n'), line.length - 1, 'one record a line');
  assert.ok(!UNSEEN.test(line.slice(0, -1)), JSON.stringify(line));
  assert.equal((JSON.parse(line) as { user: string }).user, user);
  assert.equal(logJson({ v: 'caf\u00e9' }), '{"v":"caf\u00e9"}', 'visible characters are written as they are');
});
