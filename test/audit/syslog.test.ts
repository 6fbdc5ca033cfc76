// The audit trail sent to a real syslog collector (docs/contract.md section 13): Debian's rsyslogd,
// started by each test with its own configuration (test/support/rsyslog.ts), parses what the
// sender writes (octet-counted RFC 5424, the structured data through mmpstrucdata) and writes it
// to a file the test reads. Covered: order and content, a collector that is down at the start, a
// collector restarted in the middle, two instances on PostgreSQL, TLS with the configured CA, and
// a CA that does not match.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, describe, test } from 'node:test';
import { auditJson } from '../../src/audit/audit_json.ts';
import { SYSLOG_POSITION, syslogForwarder, type SyslogTuning } from '../../src/audit/syslog_forwarder.ts';
import { SD_ID } from '../../src/audit/syslog_message.ts';
import { systemClock } from '../../src/clock.ts';
import { parseSyslogTarget } from '../../src/config/parse.ts';
import type { AuditRecord } from '../../src/domain/audit.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { admin, dropSchemas, freshSchema, PG_URL, postgresAvailable } from '../support/postgres.ts';
import { tcpProxy } from '../support/tcp_proxy.ts';
import { collector, type Collector, makePki, type Received, rsyslogMissing } from '../support/rsyslog.ts';

const missingTools = rsyslogMissing();
const pgAvailable = await postgresAvailable();
after(() => (pgAvailable ? dropSchemas() : undefined));

/** Fast enough for tests; the defaults are in SYSLOG_TUNING. */
const FAST: Partial<SyslogTuning> = {
  pollMs: 50,
  batch: 40,
  settleMs: 400,
  backoffMs: 100,
  maxBackoffMs: 400,
  leaseMs: 3_000,
  connectTimeoutMs: 2_000,
  writeTimeoutMs: 2_000,
};
const ORIGIN = { hostname: 'paddock-test', procid: '4242' };

function record(i: number, more: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: Date.UTC(2025, 0, 2, 3, 4, 5) + i,
    event: i % 3 === 0 ? 'login.local.failed' : 'device.revoked',
    account: 'oidc:ann',
    client: '203.0.113.7',
    device: `d${i}`,
    run: null,
    detail: `n=${i}`,
    ...more,
  };
}

const seqOf = (r: Received) => Number(r.fields[SD_ID]?.seq);

/**
 * At least once, in order: what arrived is increasing but for at most `rewinds` steps back (a
 * connection that broke sends again what it could not count), and holds each expected seq.
 */
function assertInOrder(got: Received[], expected: number[], rewinds = 0): void {
  const seqs = got.map(seqOf);
  let back = 0;
  for (let i = 1; i < seqs.length; i++) if ((seqs[i] ?? 0) <= (seqs[i - 1] ?? 0)) back++;
  assert.ok(back <= rewinds, `at most ${rewinds} step(s) back, got ${back}: ${seqs.join(',')}`);
  const once = [...new Set(seqs)];
  assert.deepEqual(once, expected, 'every record, and in order once duplicates are left out');
}

async function using<T>(c: Collector, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await c.dispose();
  }
}

function forwarder(
  store: Store,
  c: Pick<Collector, 'port'>,
  opts: { scheme?: 'tcp' | 'tls'; ca?: string; holder?: string } = {},
) {
  const logger = memoryLogger();
  const f = syslogForwarder({
    store,
    logger,
    clock: systemClock,
    target: parseSyslogTarget(`${opts.scheme ?? 'tcp'}://127.0.0.1:${c.port}`),
    ca: opts.ca,
    origin: ORIGIN,
    holder: opts.holder,
    tuning: FAST,
  });
  return { f, logger };
}

async function until(done: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('audit trail to syslog (rsyslogd)', { skip: missingTools }, () => {
  test('every record arrives once, in order, as RFC 5424 with its fields escaped and parsed back', async () => {
    const c = await collector();
    await c.start();
    const store = openSqliteStore(':memory:');
    await using(c, async () => {
      const tricky = record(1, { device: 'caf\u00e9 "quoted" \\back] slash', detail: 'name=a]b"c\\d' });
      await store.appendAudit(tricky);
      for (let i = 2; i <= 100; i++) await store.appendAudit(record(i));
      const { f } = forwarder(store, c);
      f.start();
      const got = await c.waitFor((r) => r.length >= 100);
      await f.stop();
      assertInOrder(
        got,
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      assert.equal(got.length, 100, 'nothing twice: the stop closed the connection in order');
      const first = got[0] as Received;
      assert.equal(first.pri, 10 * 8 + 5, 'authpriv.notice for an info event');
      assert.equal(got[2]?.pri, 10 * 8 + 4, 'authpriv.warning for a warn event (login.local.failed)');
      assert.equal(first.timestamp, new Date(tricky.at).toISOString());
      assert.equal(first.hostname, 'paddock-test');
      assert.equal(first.app, 'paddock');
      assert.equal(first.procid, '4242');
      assert.equal(first.msgid, 'device.revoked');
      assert.deepEqual(first.fields, {
        [SD_ID]: {
          seq: '1',
          account: 'oidc:ann',
          client: '203.0.113.7',
          device: 'caf\u00e9 "quoted" \\back] slash',
          detail: 'name=a]b"c\\d',
        },
      });
      assert.match(first.sd, /device="caf\u00e9 \\"quoted\\" \\\\back\\] slash"/, 'escaped as RFC 5424 6.3.3 says');
      assert.deepEqual(JSON.parse(first.msg), { seq: 1, ...auditJson(tricky) });
      assert.ok(/^[\x20-\x7e]*$/.test(first.msg), 'MSG is ASCII (no BOM needed)');
      assert.deepEqual(await store.auditForwarded(SYSLOG_POSITION), { tx: 0, seq: 100 });
    }).finally(() => store.close());
  });

  test('a collector down at the start: failures logged with a growing delay, then everything once it is up', async () => {
    const c = await collector();
    const store = openSqliteStore(':memory:');
    await using(c, async () => {
      for (let i = 1; i <= 30; i++) await store.appendAudit(record(i));
      const { f, logger } = forwarder(store, c);
      f.start();
      await until(() => logger.records.filter((r) => r.event === 'audit.syslog_failed').length >= 3);
      const failures = logger.records.filter((r) => r.event === 'audit.syslog_failed');
      assert.match(String(failures[0]?.error), /ECONNREFUSED/);
      assert.deepEqual(
        failures.slice(0, 3).map((r) => r.retry_in_ms),
        [100, 200, 400],
      );
      await c.start();
      const got = await c.waitFor((r) => r.length >= 30);
      for (let i = 31; i <= 40; i++) await store.appendAudit(record(i));
      const all = await c.waitFor((r) => r.length >= 40);
      await f.stop();
      assert.equal(got.length >= 30, true);
      assertInOrder(
        all,
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      assert.equal(all.length, 40);
      assert.ok(logger.records.some((r) => r.event === 'audit.syslog_connected' && r.position === 0));
    }).finally(() => store.close());
  });

  test('a collector restarted in the middle: nothing lost, duplicates only at the restart', async () => {
    const c = await collector();
    await c.start();
    const store = openSqliteStore(':memory:');
    await using(c, async () => {
      const { f, logger } = forwarder(store, c);
      f.start();
      let appended = 0;
      let appending = true;
      const writer = (async () => {
        while (appending) {
          await store.appendAudit(record(++appended));
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      await c.waitFor((r) => r.length >= 60);
      await c.stop();
      await new Promise((r) => setTimeout(r, 600));
      await c.start();
      await c.waitFor((r) => new Set(r.map(seqOf)).size >= appended - 5 && appended > 120);
      appending = false;
      await writer;
      const got = await c.waitFor((r) => new Set(r.map(seqOf)).size === appended);
      await f.stop();
      assertInOrder(
        got,
        Array.from({ length: appended }, (_, i) => i + 1),
        1,
      );
      assert.ok(
        logger.records.some((r) => r.event === 'audit.syslog_failed'),
        'the broken connection was noticed',
      );
    }).finally(() => store.close());
  });

  test('a connection that goes silent, then breaks: what was written into it is sent again', async () => {
    const c = await collector();
    await c.start();
    const proxy = await tcpProxy({ host: '127.0.0.1', port: c.port });
    const store = openSqliteStore(':memory:');
    await using(c, async () => {
      for (let i = 1; i <= 20; i++) await store.appendAudit(record(i));
      const { f } = forwarder(store, proxy);
      f.start();
      await c.waitFor((r) => r.length >= 20);
      // A dead network: the writes succeed, nothing arrives, and the break shows only later.
      proxy.silence();
      for (let i = 21; i <= 30; i++) await store.appendAudit(record(i));
      await new Promise((r) => setTimeout(r, 200));
      await proxy.down();
      await proxy.up();
      const got = await c.waitFor((r) => new Set(r.map(seqOf)).size >= 30);
      await f.stop();
      assertInOrder(
        got,
        Array.from({ length: 30 }, (_, i) => i + 1),
        1,
      );
    }).finally(async () => {
      await proxy.close();
      store.close();
    });
  });

  test('over TLS, the collector verified against PADDOCK_AUDIT_SYSLOG_CA', async () => {
    const pki = await makePki((await collector()).dir);
    const c = await collector(pki);
    await c.start();
    const store = openSqliteStore(':memory:');
    await using(c, async () => {
      for (let i = 1; i <= 20; i++) await store.appendAudit(record(i));
      const { f } = forwarder(store, c, { scheme: 'tls', ca: await readFile(pki.caFile, 'utf8') });
      f.start();
      const got = await c.waitFor((r) => r.length >= 20);
      await f.stop();
      assertInOrder(
        got,
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      assert.equal(got[4]?.msgid, 'device.revoked');
    }).finally(() => store.close());
  });

  test('a collector whose certificate the CA did not sign is refused: nothing sent, the failure logged', async () => {
    const pki = await makePki((await collector()).dir);
    const c = await collector(pki);
    await c.start();
    const store = openSqliteStore(':memory:');
    await using(c, async () => {
      for (let i = 1; i <= 5; i++) await store.appendAudit(record(i));
      const { f, logger } = forwarder(store, c, { scheme: 'tls', ca: await readFile(pki.otherCaFile, 'utf8') });
      f.start();
      await until(() => logger.records.filter((r) => r.event === 'audit.syslog_failed').length >= 2);
      await f.stop();
      const failure = logger.records.find((r) => r.event === 'audit.syslog_failed');
      assert.match(String(failure?.error), /certificate/i);
      assert.deepEqual(await c.received(), [], 'nothing reached the collector');
      assert.equal((await store.auditForwarded(SYSLOG_POSITION)).seq, 0, 'the position did not move');
      assert.ok(!logger.records.some((r) => r.event === 'audit.syslog_connected'));
    }).finally(() => store.close());
  });

  test(
    'two instances on one PostgreSQL store: one sends at a time, each record once in commit order',
    {
      skip: !pgAvailable && process.env.CI !== 'true' ? 'no PostgreSQL' : false,
    },
    async () => {
      const c = await collector();
      await c.start();
      const schema = freshSchema();
      const one = await openPostgresStore(PG_URL, { schema });
      const two = await openPostgresStore(PG_URL, { schema });
      await using(c, async () => {
        const a = forwarder(one, c, { holder: 'one' });
        const b = forwarder(two, c, { holder: 'two' });
        a.f.start();
        b.f.start();
        // Both instances append at once, 60 records each, interleaved.
        await Promise.all(
          [one, two].map(async (store, k) => {
            for (let i = 0; i < 60; i++) await store.appendAudit(record(k * 1000 + i));
          }),
        );
        await c.waitFor((r) => new Set(r.map(seqOf)).size >= 120);
        // The one sending stops; the other takes over from the kept position.
        const sender = a.logger.records.some((r) => r.event === 'audit.syslog_connected') ? a : b;
        const other = sender === a ? b : a;
        await sender.f.stop();
        for (let i = 0; i < 30; i++) await (sender === a ? two : one).appendAudit(record(5000 + i));
        const got = await c.waitFor((r) => new Set(r.map(seqOf)).size >= 150);
        await other.f.stop();
        const order = await admin(async (client) =>
          (await client.query(`SELECT seq FROM "${schema}".audit ORDER BY tx, seq`)).rows.map((r: { seq: string }) =>
            Number(r.seq),
          ),
        );
        assertInOrder(got, order, 1);
        assert.ok(
          other.logger.records.some((r) => r.event === 'audit.syslog_connected'),
          'the other took over',
        );
      }).finally(async () => {
        await one.close();
        await two.close();
      });
    },
  );
});
