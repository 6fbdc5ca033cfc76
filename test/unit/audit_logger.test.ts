// The audit decorator (src/audit/audit_logger.ts): audited records are stored off the request
// path, in order, with their columns and a detail free of secrets; a failing store fails nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditLogger, AUDIT_QUEUE_MAX } from '../../src/audit/audit_logger.ts';
import { auditRecord } from '../../src/audit/audit_record.ts';
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

test('log() passes every record on and only queues: the write happens after the caller returns', async () => {
  const inner = memoryLogger();
  const store = fakeStore();
  const clock = fakeClock();
  const logger = auditLogger(inner, store, clock);
  logger.log('info', 'device.revoked', { account: 'local:admin', client: '203.0.113.7', device: 'd1' });
  logger.log('info', 'server.started', { listen: 'http://127.0.0.1:1' });
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
  for (let i = 0; i < 5; i++) logger.log('info', 'run.deleted', { account: 'a', device: 'd', run: `r${i}` });
  await new Promise((resolve) => setTimeout(resolve, 3));
  for (let i = 5; i < 8; i++) logger.log('info', 'run.deleted', { account: 'a', device: 'd', run: `r${i}` });
  await logger.flush();
  assert.deepEqual(
    store.rows.map((r) => r.run),
    ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'],
  );
});

test('a failed write is logged as an error naming the event, without the record’s fields', async () => {
  const inner = memoryLogger();
  const logger = auditLogger(inner, fakeStore(true), fakeClock());
  logger.log('info', 'enroll_token.minted', {
    account: 'local:admin',
    client: '203.0.113.7',
    owner: 'oidc:someone-private',
  });
  await logger.flush();
  const failure = inner.records.find((r) => r.event === 'audit.write_failed');
  assert.deepEqual(failure, {
    level: 'error',
    event: 'audit.write_failed',
    error: 'store: the store is unavailable',
  });
  assert.doesNotMatch(JSON.stringify(failure), /someone-private|203\.0\.113\.7/);
});

test('a store that never answers holds at most AUDIT_QUEUE_MAX records; the rest are counted and reported', async () => {
  const inner = memoryLogger();
  let release: () => void = () => undefined;
  const rows: AuditRecord[] = [];
  const store = {
    appendAudit: (r: AuditRecord) =>
      new Promise<void>((resolve) => {
        rows.push(r);
        release = resolve;
      }),
  };
  const logger = auditLogger(inner, store, fakeClock());
  logger.log('info', 'run.deleted', { account: 'a' });
  await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < AUDIT_QUEUE_MAX + 5; i++) logger.log('info', 'run.deleted', { account: 'a' });
  const flushed = logger.flush();
  // Release writes one at a time until the queue drains.
  while (rows.length < AUDIT_QUEUE_MAX + 1) {
    release();
    await new Promise((resolve) => setImmediate(resolve));
  }
  release();
  await flushed;
  assert.equal(rows.length, AUDIT_QUEUE_MAX + 1);
  assert.deepEqual(inner.records.at(-1), {
    level: 'error',
    event: 'audit.dropped',
    records: 5,
    error: 'the audit queue was full',
  });
});

test('the stored form: account of a break-glass sign-in is local:<user>; detail holds the other fields, never a secret', () => {
  assert.deepEqual(auditRecord(5, 'login.local.failed', { user: 'admin', client: '192.0.2.1' }), {
    at: 5,
    event: 'login.local.failed',
    account: 'local:admin',
    client: '192.0.2.1',
    device: null,
    run: null,
    detail: 'user=admin',
  });
  const minted = auditRecord(6, 'enroll_token.minted', {
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
  assert.equal(auditRecord(7, 'login.oidc.exchange_failed', { client: 'c', error: 'x' }).account, null);
  assert.equal(auditRecord(8, 'run.deleted', { account: 'a', note: 'é'.repeat(600) }).detail.length, 500);
});
