// Refusals on the routes open without a credential (docs/contract.md section 23): audited at most
// once a minute per client address (IPv6 by /64) and event, with the number of refusals each row
// stands for; the windows are bounded in number, and addresses past the bound share one per event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditTrail } from '../../src/audit/audit_logger.ts';
import { MANY_CLIENTS, refusalLimit } from '../../src/audit/refusal_limit.ts';
import type { AuditRecord } from '../../src/domain/audit.ts';
import { EVENTS } from '../../src/events/catalogue.ts';
import type { Note } from '../../src/events/note.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { fakeClock } from '../support/fake_clock.ts';

const MINUTE = 60_000;
const rejected = (client: string, error = 'bad signature') => ({ client, error });

test('2,000 refusals from one address in a minute: one row at once, the rest in the row a minute later', () => {
  const limit = refusalLimit();
  const event = EVENTS.oidcLogoutTokenRejected;
  const admitted = Array.from({ length: 2_000 }, (_, i) => limit.admit(event, rejected('203.0.113.7', `e${i}`), i));
  assert.deepEqual(admitted[0], { client: '203.0.113.7', error: 'e0', count: 1 }, 'the first, at once');
  assert.equal(admitted.filter((a) => a !== undefined).length, 1);
  assert.deepEqual(limit.due(MINUTE - 1), [], 'not before the minute has passed');
  assert.deepEqual(limit.due(MINUTE), [{ event, fields: { client: '203.0.113.7', error: 'e1999', count: 1_999 } }]);
  assert.deepEqual(limit.due(2 * MINUTE), [], 'a minute with no refusal writes nothing');
  assert.equal(limit.size(), 0, 'and is forgotten');
  assert.deepEqual(limit.admit(event, rejected('203.0.113.7'), 2 * MINUTE), { ...rejected('203.0.113.7'), count: 1 });
});

test('a refusal after the minute, before the rows were carried, carries the count on itself', () => {
  const limit = refusalLimit();
  const event = EVENTS.loginLocalFailed;
  for (let i = 0; i < 5; i++) limit.admit(event, { user: 'admin', client: '192.0.2.1' }, i);
  assert.deepEqual(limit.admit(event, { user: 'root', client: '192.0.2.1' }, MINUTE + 4), {
    user: 'root',
    client: '192.0.2.1',
    count: 5,
  });
});

test('windows are per address and event; IPv6 addresses of one /64 share one', () => {
  const limit = refusalLimit();
  const first = [
    limit.admit(EVENTS.oidcLogoutTokenRejected, rejected('192.0.2.1'), 0),
    limit.admit(EVENTS.oidcLogoutTokenRejected, rejected('192.0.2.2'), 0),
    limit.admit(EVENTS.loginOidcTokenRejected, rejected('192.0.2.1'), 0),
    limit.admit(EVENTS.oidcLogoutTokenRejected, rejected('2001:db8:1:2::1'), 0),
    limit.admit(EVENTS.oidcLogoutTokenRejected, rejected('2001:db8:1:2:ffff::9'), 0),
    limit.admit(EVENTS.oidcLogoutTokenRejected, rejected('2001:db8:1:3::1'), 0),
  ];
  assert.deepEqual(
    first.map((a) => a?.count),
    [1, 1, 1, 1, undefined, 1],
  );
  assert.deepEqual(
    limit.due(MINUTE).map((r) => [r.event.name, r.fields.client, r.fields.count]),
    [['oidc.logout_token_rejected', '2001:db8:1:2:ffff::9', 1]],
  );
});

test('memory is bounded: past the bound, new addresses share one window per event, its rows naming client *', () => {
  const limit = refusalLimit(MINUTE, 3);
  const event = EVENTS.oidcLogoutTokenRejected;
  const admitted = Array.from({ length: 10_000 }, (_, i) =>
    limit.admit(event, rejected(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`), i),
  );
  assert.equal(limit.size(), 4, 'three addresses and the shared window');
  assert.deepEqual(
    admitted.filter((a) => a !== undefined).map((a) => [a.client, a.count]),
    [
      ['10.0.0.0', 1],
      ['10.0.0.1', 1],
      ['10.0.0.2', 1],
      [MANY_CLIENTS, 1],
    ],
  );
  assert.deepEqual(
    limit.due(10 * MINUTE).map((r) => [r.fields.client, r.fields.count]),
    [[MANY_CLIENTS, 9_996]],
  );
  limit.due(20 * MINUTE);
  assert.equal(limit.size(), 0, 'windows expire');
});

test('drain gives every counted refusal, whatever its minute, and forgets the windows (shutdown)', () => {
  const limit = refusalLimit();
  for (let i = 0; i < 3; i++) limit.admit(EVENTS.loginOidcExchangeFailed, rejected('192.0.2.1'), i);
  limit.admit(EVENTS.loginOidcExchangeFailed, rejected('192.0.2.2'), 0);
  assert.deepEqual(
    limit.drain().map((r) => [r.fields.client, r.fields.count]),
    [['192.0.2.1', 2]],
  );
  assert.equal(limit.size(), 0);
});

function fakeStore() {
  const rows: AuditRecord[] = [];
  const notes: Note[] = [];
  return {
    rows,
    notes,
    appendAudit: async (r: AuditRecord) => void rows.push(r),
    enqueue: async (n: Note) => void notes.push(n),
  };
}

test('the audit trail and the webhook outbox: one row a minute per address, with count; close writes the rest', async () => {
  const store = fakeStore();
  const clock = fakeClock();
  const trail = auditTrail(store, clock, memoryLogger());
  for (let i = 0; i < 2_000; i++) await trail.hear(EVENTS.loginLocalFailed, { user: 'admin', client: '203.0.113.7' });
  await trail.hear(EVENTS.loginLocalFailed, { user: 'admin', client: '198.51.100.1' });
  await trail.flush();
  assert.deepEqual(
    store.rows.map((r) => [r.client, r.detail]),
    [
      ['203.0.113.7', 'user=admin count=1'],
      ['198.51.100.1', 'user=admin count=1'],
    ],
  );
  assert.deepEqual(
    store.notes.map((n) => [n.event, JSON.parse(n.data)]),
    [
      ['login.local.failed', { user: 'admin', client: '203.0.113.7', count: 1 }],
      ['login.local.failed', { user: 'admin', client: '198.51.100.1', count: 1 }],
    ],
    'the webhook message of each row, with its count',
  );
  clock.advance(MINUTE);
  trail.carryRefusals();
  await trail.flush();
  assert.deepEqual(
    store.rows.slice(2).map((r) => [r.client, r.detail]),
    [['203.0.113.7', 'user=admin count=1999']],
  );
  assert.equal(JSON.parse(store.notes[2]?.data ?? '{}').count, 1_999);
  await trail.hear(EVENTS.oidcLogoutTokenRejected, rejected('203.0.113.7'));
  await trail.hear(EVENTS.oidcLogoutTokenRejected, rejected('203.0.113.7'));
  await trail.close();
  assert.deepEqual(
    store.rows.slice(3).map((r) => [r.event, r.detail]),
    [
      ['oidc.logout_token_rejected', 'error=bad signature count=1'],
      ['oidc.logout_token_rejected', 'error=bad signature count=1'],
    ],
    'close writes what was counted and not yet audited',
  );
  assert.equal(store.notes.length, 3, 'a logout token refusal is not a webhook event');
});

test('other audited events are a row each, as before', async () => {
  const store = fakeStore();
  const trail = auditTrail(store, fakeClock(), memoryLogger());
  for (let i = 0; i < 3; i++)
    await trail.hear(EVENTS.deviceRevoked, { account: 'local:admin', client: '203.0.113.7', device: 'd1' });
  await trail.flush();
  assert.equal(store.rows.length, 3);
  assert.equal(store.notes.length, 0, 'their messages are written by their actions');
});
