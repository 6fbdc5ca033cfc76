// The audit trail (src/audit/audit_logger.ts), a subscriber of the event bus: audited events are
// stored off the request path, in order, with their columns and a detail free of secrets; a
// failing store fails nothing; a full queue holds the emitter (backpressure) and drops nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditLogger, auditTrail, AUDIT_QUEUE_MAX } from '../../src/audit/audit_logger.ts';
import { auditRecord } from '../../src/audit/audit_record.ts';
import { eventBus } from '../../src/events/bus.ts';
import { EVENTS } from '../../src/events/catalogue.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import type { AuditRecord } from '../../src/domain/audit.ts';
import { fakeClock } from '../support/fake_clock.ts';

function fakeStore(fail = false) {
  const rows: AuditRecord[] = [];
  return {
    rows,
    async appendAudit(r: AuditRecord) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (fail) throw new Error('store: the store is unavailable');
      rows.push(r);
    },
  };
}

test('emit() passes every event to the log and only queues: the write happens after the caller returns', async () => {
  const inner = memoryLogger();
  const store = fakeStore();
  const clock = fakeClock();
  const logger = auditLogger(inner, store, clock);
  void logger.emit(EVENTS.deviceRevoked, { account: 'local:admin', client: '203.0.113.7', device: 'd1' });
  void logger.emit(EVENTS.serverStarted, { listen: 'http://127.0.0.1:1', base_url: '', version: '1' });
  assert.equal(inner.records.length, 2, 'the inner logger has both at once');
  assert.equal(store.rows.length, 0, 'nothing written on the caller’s path');
  await logger.flush();
  assert.deepEqual(store.rows, [
    {
      at: clock.now(),
      event: 'device.revoked',
      account: 'local:admin',
      client: '203.0.113.7',
      device: 'd1',
      run: null,
      detail: '',
    },
  ]);
});

test('records are written in the order they were logged, also when logged during a write', async () => {
  const store = fakeStore();
  const logger = auditLogger(memoryLogger(), store, fakeClock());
  const deleted = (run: string) => logger.emit(EVENTS.runDeleted, { account: 'a', client: 'c', device: 'd', run });
  for (let i = 0; i < 5; i++) await deleted(`r${i}`);
  await new Promise((resolve) => setTimeout(resolve, 3));
  for (let i = 5; i < 8; i++) await deleted(`r${i}`);
  await logger.flush();
  assert.deepEqual(
    store.rows.map((r) => r.run),
    ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'],
  );
});

test('a failed write is logged as an error naming the event, without the record’s fields', async () => {
  const inner = memoryLogger();
  const logger = auditLogger(inner, fakeStore(true), fakeClock());
  await logger.emit(EVENTS.enrollTokenMinted, {
    account: 'local:admin',
    client: '203.0.113.7',
    owner: 'oidc:someone-private',
    token: 'public-id',
    uses: 1,
    max_privacy: 'full',
    approval: 'automatic',
  });
  await logger.flush();
  const failure = inner.records.find((r) => r.event === 'audit.write_failed');
  assert.deepEqual(failure, {
    level: 'error',
    event: 'audit.write_failed',
    audit_event: 'enroll_token.minted',
    error: 'store: the store is unavailable',
  });
  assert.doesNotMatch(JSON.stringify(failure), /someone-private|203\.0\.113\.7/);
});

test('a store that never answers holds AUDIT_QUEUE_MAX rows; the next emitters wait for room, in order, and nothing is dropped', async () => {
  const inner = memoryLogger();
  const releases: Array<() => void> = [];
  const rows: AuditRecord[] = [];
  const store = {
    appendAudit: (r: AuditRecord) =>
      new Promise<void>((resolve) => {
        rows.push(r);
        releases.push(resolve);
      }),
  };
  const trail = auditTrail(store, fakeClock(), inner);
  const logger = eventBus(inner, trail);
  const deleted = (run: string) => logger.emit(EVENTS.runDeleted, { account: 'a', client: 'c', device: 'd', run });
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  await deleted('first');
  await tick();
  assert.equal(rows.length, 1, 'the first row is being written');
  // The queue fills: each of these emitters goes on at once.
  for (let i = 0; i < AUDIT_QUEUE_MAX; i++) await deleted(`q${i}`);
  assert.deepEqual(trail.depth(), { queued: AUDIT_QUEUE_MAX, waiting: 0 });
  // The next five find it full: their emits stay pending, and their rows wait in line.
  const settled: string[] = [];
  const late = ['w0', 'w1', 'w2', 'w3', 'w4'].map((run) => deleted(run).then(() => settled.push(run)));
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(settled, [], 'an emitter waits while the queue is full');
  assert.deepEqual(trail.depth(), { queued: AUDIT_QUEUE_MAX, waiting: 5 });
  assert.equal(inner.records.length, AUDIT_QUEUE_MAX + 6, 'the log has heard every event at once');
  // One write finishes: one row leaves the queue, the first waiting emitter goes on, the others wait.
  releases.shift()?.();
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(settled, ['w0']);
  assert.deepEqual(trail.depth(), { queued: AUDIT_QUEUE_MAX, waiting: 4 });
  // The store answers again: everything is written, in the order it was emitted.
  const flushed = trail.flush();
  while (rows.length < AUDIT_QUEUE_MAX + 6 || releases.length > 0) {
    releases.shift()?.();
    await tick();
  }
  await flushed;
  await Promise.all(late);
  assert.deepEqual(settled, ['w0', 'w1', 'w2', 'w3', 'w4']);
  assert.deepEqual(
    rows.map((r) => r.run),
    ['first', ...Array.from({ length: AUDIT_QUEUE_MAX }, (_, i) => `q${i}`), 'w0', 'w1', 'w2', 'w3', 'w4'],
  );
  assert.equal(
    inner.records.filter((r) => r.level === 'error').length,
    0,
    'nothing dropped, nothing reported as failed',
  );
});

test('an unaudited event never waits, even while the queue is full', async () => {
  const store = { appendAudit: () => new Promise<void>(() => undefined) };
  const inner = memoryLogger();
  const trail = auditTrail(store, fakeClock(), inner, 1);
  const logger = eventBus(inner, trail);
  const revoked = () => logger.emit(EVENTS.deviceRevoked, { account: 'a', device: 'd' });
  await revoked();
  await new Promise((resolve) => setImmediate(resolve));
  await revoked();
  let waited = true;
  void revoked().then(() => (waited = false));
  await logger.emit(EVENTS.serverError, { error: 'x' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(waited, true, 'the audited emit still waits');
  assert.deepEqual(trail.depth(), { queued: 1, waiting: 1 });
});

test('the stored form: account of a break-glass sign-in is local:<user>; detail holds the other fields, never a secret', () => {
  assert.deepEqual(auditRecord(5, EVENTS.loginLocalFailed, { user: 'admin', client: '192.0.2.1' }), {
    at: 5,
    event: 'login.local.failed',
    account: 'local:admin',
    client: '192.0.2.1',
    device: null,
    run: null,
    detail: 'user=admin',
  });
  const minted = auditRecord(6, EVENTS.enrollTokenMinted, {
    account: 'oidc:ann',
    client: '192.0.2.1',
    owner: 'oidc:bob',
    token: 'public-id',
    uses: 3,
    max_privacy: 'redacted',
    password: 'hunter2hunter2',
    credential: 'c-secret',
    cookie: 'k-secret',
    code: 'x-secret',
    token_hash: 'h-secret',
    link: 'paddock://enroll?token=t-secret',
  });
  assert.equal(minted.detail, 'owner=oidc:bob token=public-id uses=3 max_privacy=redacted');
  assert.equal(auditRecord(7, EVENTS.loginOidcExchangeFailed, { client: 'c', error: 'x' }).account, null);
  assert.equal(auditRecord(8, EVENTS.runDeleted, { account: 'a', note: 'é'.repeat(600) }).detail.length, 500);
});
