// Approval in the JSON API (docs/contract.md sections 11 and 16) as a table of scenarios, each on a
// fresh world and run on both stores, as test/api/scenarios.test.ts does for the rest of the API:
// minting with `approval`, the `pending` status and its filter, and POST …/approve and …/reject
// (administrators with a write token only; 409 for a device that does not wait). Every response is
// checked against the served OpenAPI document, and the table covers both operations of it.
import assert from 'node:assert/strict';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';
import { type ApiRow, apiTable, apiToken } from '../support/api_table.ts';

type Token = 'admin' | 'user' | 'adminRead';

interface World {
  h: Harness;
  tokens: Record<Token, string>;
  /** The user's pending device `waits` (and its credential), the other account's pending `theirs`, the user's active `mine`. */
  ids: { waits: string; theirs: string; mine: string; credential: string };
}

type Row = ApiRow<World>;
type Json = Record<string, unknown>;
const used = 'access_token.used' as const;
const items = (body: unknown) => (body as { items: Json[] }).items;
const state = async (w: World, id: string) => {
  const d = await w.h.store.deviceVisibleTo(ACCOUNTS.admin, id);
  return { pending: d?.pendingSince !== null, revoked: d?.revokedAt !== null };
};
const stillWaits = async (w: World) => assert.deepEqual(await state(w, w.ids.waits), { pending: true, revoked: false });

const rows: Row[] = [
  {
    name: 'an admin approves a pending device: 204; it uploads at once',
    as: 'admin',
    method: 'POST',
    path: '/api/v1/devices/{waits}/approve',
    status: 204,
    events: [used, 'device.approved'],
    audited: [['device.approved', ACCOUNTS.admin.subject]],
    check: async (w) => {
      assert.deepEqual(await state(w, w.ids.waits), { pending: false, revoked: false });
      assert.equal((await upload(w.h, w.ids.credential, 'first', 'x')).status, 201);
    },
  },
  {
    name: 'an admin rejects a pending device: 204; it is revoked, its credential refused at once',
    as: 'admin',
    method: 'POST',
    path: '/api/v1/devices/{waits}/reject',
    status: 204,
    events: [used, 'device.rejected'],
    audited: [['device.rejected', ACCOUNTS.admin.subject]],
    check: async (w) => {
      assert.deepEqual(await state(w, w.ids.waits), { pending: false, revoked: true });
      assert.equal((await upload(w.h, w.ids.credential, 'first', 'x')).status, 401);
    },
  },
  ...(['approve', 'reject'] as const).map((action): Row => ({
    name: `${action}: a device that does not wait is a 409, nothing changed`,
    as: 'admin',
    method: 'POST',
    path: `/api/v1/devices/{mine}/${action}`,
    status: 409,
    events: [used],
    check: async (w) => assert.deepEqual(await state(w, w.ids.mine), { pending: false, revoked: false }),
  })),
  {
    name: 'reject: an unknown device is a 404',
    as: 'admin',
    method: 'POST',
    path: '/api/v1/devices/d_nosuchdevice0000/reject',
    status: 404,
    events: [used],
  },
  {
    name: 'approve: a user may not, not even its own device',
    as: 'user',
    method: 'POST',
    path: '/api/v1/devices/{waits}/approve',
    status: 403,
    events: [used, 'access.admin_refused'],
    check: stillWaits,
  },
  {
    name: "reject: an administrator's read token changes nothing",
    as: 'adminRead',
    method: 'POST',
    path: '/api/v1/devices/{waits}/reject',
    status: 403,
    events: ['access.read_only_refused'],
    check: stillWaits,
  },
  {
    name: 'the pending filter: an admin sees every waiting device, with the status pending',
    as: 'admin',
    path: '/api/v1/devices?status=pending',
    status: 200,
    check: (w, body) => {
      assert.deepEqual(
        items(body)
          .map((d) => d.id)
          .sort(),
        [w.ids.theirs, w.ids.waits].sort(),
      );
      assert.ok(items(body).every((d) => d.status === 'pending'));
    },
  },
  {
    name: 'the pending filter within a user scope; pending is not active',
    as: 'user',
    path: '/api/v1/devices?status=pending',
    status: 200,
    check: (w, body) =>
      assert.deepEqual(
        items(body).map((d) => d.id),
        [w.ids.waits],
      ),
  },
  {
    name: 'the active filter leaves the waiting devices out',
    as: 'admin',
    path: '/api/v1/devices?status=active',
    status: 200,
    check: (w, body) =>
      assert.deepEqual(
        items(body).map((d) => d.id),
        [w.ids.mine],
      ),
  },
  {
    name: 'a pending device alone',
    as: 'user',
    path: '/api/v1/devices/{waits}',
    status: 200,
    check: (_w, body) => assert.equal((body as Json).status, 'pending'),
  },
  {
    name: 'mint with approval required: its link enrolls pending devices',
    as: 'admin',
    method: 'POST',
    path: '/api/v1/enroll-tokens',
    json: { approval: 'required', uses: 2 },
    status: 201,
    events: [used, 'enroll_token.minted'],
    check: async (w, body) => {
      const minted = body as { token: Json; link: string };
      assert.equal(minted.token.approval, 'required');
      const token = new URL(minted.link).searchParams.get('token');
      const res = await w.h.control('/v1/enroll', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, name: 'new' }),
      });
      assert.equal(res.status, 201);
      const { device } = (await res.json()) as { device: string };
      assert.deepEqual(await state(w, device), { pending: true, revoked: false });
      const listed = await w.h.store.outstandingEnrollTokens({ limit: 10 }, w.h.clock.now());
      assert.deepEqual(
        listed.items.map((t) => t.approval),
        ['required'],
      );
    },
  },
  ...[
    ['an unknown approval', 'maybe'],
    ['approval not a string', true],
    ['approval in capitals', 'REQUIRED'],
  ].map(([what, approval]): Row => ({
    name: `mint: ${String(what)}`,
    as: 'admin',
    method: 'POST',
    path: '/api/v1/enroll-tokens',
    json: { approval },
    status: 400,
    field: 'approval',
    events: [used],
    check: async (w) =>
      assert.equal((await w.h.store.outstandingEnrollTokens({ limit: 5 }, w.h.clock.now())).items.length, 0),
  })),
];

async function world(store?: Store): Promise<World> {
  const h = await harness({ store });
  const now = h.clock.now();
  const tokens = {} as Record<Token, string>;
  const make = async (name: Token, who: keyof typeof ACCOUNTS, scope: 'read' | 'write' = 'write') => {
    tokens[name] = await apiToken(h, who, scope);
  };
  await make('admin', 'admin');
  await make('user', 'user');
  await make('adminRead', 'admin', 'read');
  const pending = async (owner: string, name: string) => {
    const token = randomToken(32);
    await h.store.createEnrollToken({
      hash: secretHash(token),
      owner,
      createdBy: ACCOUNTS.admin.subject,
      createdAt: now,
      expiresAt: now + 3_600_000,
      approval: 'required',
    });
    const res = await h.control('/v1/enroll', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name }),
    });
    assert.equal(res.status, 201);
    return (await res.json()) as { device: string; credential: string };
  };
  const mine = await enrollDevice(h, ACCOUNTS.user.subject, 'mine');
  const waits = await pending(ACCOUNTS.user.subject, 'waits');
  const theirs = await pending(ACCOUNTS.other.subject, 'theirs');
  h.clock.advance(10);
  return {
    h,
    tokens,
    ids: { waits: waits.device, theirs: theirs.device, mine: mine.device, credential: waits.credential },
  };
}

await apiTable(rows, world, {
  title: 'the table covers approve and reject in the document',
  owns: (path) => /\/(approve|reject)$/.test(path),
});
