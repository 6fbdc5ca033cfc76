// Approval on the control API (docs/contract.md section 16): a device enrolled with a token minted
// `approval=required` gets its credential (201) and may report its facts; every other control call,
// each route of the routes table, answers 403 with a body saying it waits, at once, and stores
// nothing (no run, no chunk, no target answered, no credential changed, not even last seen). Once
// approved it uploads at once; once rejected its credential is refused at once.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { controlRoutes } from '../../src/control/routes.ts';
import { approveDevice, rejectDevice } from '../../src/actions/approval.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { harness, type Harness, upload } from '../support/harness.ts';

const ADMIN = { subject: 'local:admin', admin: true, client: '203.0.113.7' };
const WAITS = /^this device waits for an administrator's approval: nothing was stored/;

/** Mints a token with approval required in the store and enrolls a device with it through the control API. */
async function enrollPending(h: Harness, name: string): Promise<{ device: string; credential: string }> {
  const token = randomToken(32);
  await h.store.createEnrollToken({
    hash: secretHash(token),
    owner: 'oidc:ann',
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + 600_000,
    approval: 'required',
  });
  const res = await h.control('/v1/enroll', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name }),
  });
  assert.equal(res.status, 201, 'enrollment answers 201 with a credential');
  return (await res.json()) as { device: string; credential: string };
}

/** A request of each route, as a device would send it; a route added later is called bare. */
const CALLS: Record<string, { path: string; init: RequestInit }> = {
  'PUT /v1/runs/:id': {
    path: '/v1/runs/r1',
    init: { method: 'PUT', headers: { 'x-privacy-level': 'full', 'content-type': 'text/plain' }, body: 'secret' },
  },
  'GET /v1/requests': { path: '/v1/requests?wait=30', init: { method: 'GET' } },
  'POST /v1/requests/:id/decline': {
    path: '/v1/requests/r_1/decline',
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"reason":"no"}' },
  },
  'POST /v1/credential': { path: '/v1/credential', init: { method: 'POST' } },
  'PUT /v1/device/facts': {
    path: '/v1/device/facts',
    init: { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"os":"linux"}' },
  },
};

async function send(h: Harness, method: string, path: string, credential?: string): Promise<Response> {
  const given = CALLS[`${method} ${path}`] ?? { path: path.replace(/:[a-z]+/g, 'x'), init: { method } };
  const headers = new Headers(given.init.headers);
  if (credential !== undefined) headers.set('authorization', `Bearer ${credential}`);
  return h.control(given.path, { ...given.init, headers });
}

test('a pending device: 201 at enrollment, 403 with a body on every control route but its facts, nothing stored', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-approval-'));
  const h = await harness({ store: openSqliteStore(dir) });
  const db = new DatabaseSync(join(dir, 'paddock.db'), { readOnly: true });
  const one = (sql: string, ...args: string[]) => db.prepare(sql).get(...args) as Record<string, unknown>;
  try {
    const { device, credential } = await enrollPending(h, 'waiting');
    const row = () => one('SELECT last_seen_at, credential_hash, pending_since FROM devices WHERE id = ?', device);
    assert.equal(row().pending_since, h.clock.now(), 'pending since its enrollment');
    assert.deepEqual(
      h.logs.filter((r) => r.device === device).map((r) => r.event),
      ['device.enrolled', 'device.pending'],
    );
    const before = row();
    // Past the minute within which last seen is not written again: a call that counted would write it.
    h.clock.advance(120_000);

    const refused: string[] = [];
    for (const route of controlRoutes) {
      if (route.path === '/v1/enroll' || route.whilePending) continue;
      const key = `${route.method} ${route.path}`;
      // A route open to anyone has nothing of a device's to refuse (it answers without a credential).
      if ((await send(h, route.method, route.path)).status !== 401) continue;
      const started = Date.now();
      const res = await send(h, route.method, route.path, credential);
      assert.equal(res.status, 403, key);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/, key);
      assert.match(await res.text(), WAITS, key);
      assert.ok(Date.now() - started < 2_000, `${key}: answered at once, never held`);
      refused.push(key);
    }
    assert.ok(
      ['PUT /v1/runs/:id', 'GET /v1/requests', 'POST /v1/requests/:id/decline'].every((k) => refused.includes(k)),
      `uploads, requests and declines are refused: ${refused.join(', ')}`,
    );
    // An upload for a collection's request, too.
    const asked = await h.control('/v1/runs/r2', {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'minimal', 'x-collection': 'r_1' },
      body: 'x',
    });
    assert.equal(asked.status, 403);

    assert.deepEqual({ ...one('SELECT count(*) AS n FROM runs') }, { n: 0 }, 'no run stored');
    assert.deepEqual({ ...one('SELECT count(*) AS n FROM run_chunks') }, { n: 0 }, 'no chunk stored');
    assert.deepEqual({ ...one('SELECT count(*) AS n FROM collection_targets') }, { n: 0 });
    assert.deepEqual({ ...row() }, { ...before }, 'not seen, the same credential, still pending');
    assert.deepEqual(
      h.logs.filter((r) => r.device === device).map((r) => r.event),
      ['device.enrolled', 'device.pending'],
      'nothing logged of the refused calls',
    );

    // Its facts are taken: the one call a pending device may make (the rows that say whilePending).
    for (const route of controlRoutes.filter((r) => r.whilePending)) {
      const res = await send(h, route.method, route.path, credential);
      assert.ok(res.status < 300, `${route.method} ${route.path}: ${res.status} ${await res.text()}`);
    }
  } finally {
    db.close();
    await h.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('approved: the device uploads and asks for requests at once; rejected: its credential is refused at once', async () => {
  const h = await harness();
  try {
    const kept = await enrollPending(h, 'kept');
    const gone = await enrollPending(h, 'gone');
    for (const d of [kept, gone]) assert.equal((await upload(h, d.credential, 'first', 'x')).status, 403);

    assert.equal(await approveDevice(h, ADMIN, kept.device), 'done');
    // No wait for a remembered lookup: a pending device's credential is never remembered.
    assert.equal((await upload(h, kept.credential, 'first', 'x')).status, 201);
    const requests = await h.control('/v1/requests', { headers: { authorization: `Bearer ${kept.credential}` } });
    assert.equal(requests.status, 200);
    assert.equal(await approveDevice(h, ADMIN, kept.device), 'not-pending');

    assert.equal(await rejectDevice(h, ADMIN, gone.device), 'done');
    assert.equal((await upload(h, gone.credential, 'first', 'x')).status, 401);
    for (const route of controlRoutes.filter((r) => r.path !== '/v1/enroll')) {
      if ((await send(h, route.method, route.path)).status !== 401) continue;
      assert.equal((await send(h, route.method, route.path, gone.credential)).status, 401, route.path);
    }
    assert.equal(await rejectDevice(h, ADMIN, gone.device), 'not-pending', 'rejected once');
    assert.equal(await approveDevice(h, ADMIN, gone.device), 'not-pending', 'a rejected device stays revoked');
    const events = h.logs.filter((r) => r.event === 'device.approved' || r.event === 'device.rejected');
    assert.deepEqual(
      events.map((r) => [r.event, r.device, r.account]),
      [
        ['device.approved', kept.device, 'local:admin'],
        ['device.rejected', gone.device, 'local:admin'],
      ],
    );
    await h.flushAudit();
    for (const event of ['device.pending', 'device.approved', 'device.rejected']) {
      const trail = [];
      for await (const batch of h.store.auditBatches({ event }, 10)) trail.push(...batch);
      assert.equal(trail.length, event === 'device.pending' ? 2 : 1, event);
    }
  } finally {
    await h.close();
  }
});
