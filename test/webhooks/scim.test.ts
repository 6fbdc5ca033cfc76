/**
 * SCIM's events as webhook messages (docs/contract.md sections 13 and 20), on both stores: the
 * identity provider's changes to users and groups reach a real receiver, verified with the
 * `standardwebhooks` library, with the fields the log heard and never the token; a request that
 * fails (a bad PATCH, a taken name, an unknown member) changes nothing and
 * delivers nothing, since the note is written in the change's transaction.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { onBothStores } from '../support/both_stores.ts';
import { enrollDevice } from '../support/harness.ts';
import { assertScimError, scimClient } from '../scim/client.ts';
import { endpoint, receiver, sender, type Received, type Receiver } from './world.ts';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** An endpoint for `events` on a fresh receiver: the receiver, verifying with the endpoint's secret. */
async function subscribed(store: Store, events: string[]): Promise<Receiver> {
  let secret = '';
  const r = await receiver(() => [secret]);
  secret = (await endpoint(store, r.url, events)).secret;
  return r;
}

/** Runs a sender until `n` messages arrived and it has nothing left to do; the messages. */
async function deliver(store: Store, r: Receiver, n: number): Promise<Received[]> {
  const { sender: s } = sender(store);
  s.start();
  try {
    await r.waitFor(n);
    await s.idle();
  } finally {
    await s.stop();
  }
  return r.received;
}

/** The message of `type`, whose data is the fields the log heard for that event. */
function delivered(got: readonly Received[], logs: ReadonlyArray<Record<string, unknown>>, type: string) {
  const message = got.find((m) => m.payload.type === type);
  assert.ok(message, `${type} delivered: ${got.map((m) => m.payload.type).join(', ')}`);
  const heard = Object.entries(logs.find((r) => r.event === type) ?? {});
  const fields = Object.fromEntries(heard.filter(([k]) => k !== 'level' && k !== 'event'));
  assert.deepEqual(message.payload.data, fields, type);
  return message.payload.data;
}

onBothStores((name, open, skip) => {
  describe(`SCIM webhook messages: ${name}`, { skip }, () => {
    test("a user's creation and deactivation, and a group's creation, change and deletion, are delivered", async () => {
      const store = await open();
      const s = await scimClient(store);
      const r = await subscribed(store, ['*']);
      try {
        const user = (await s.send('POST', '/Users', { userName: 'ada@example.com', displayName: 'Ada' })).body;
        const id = user.id as string;
        const off = await s.send('PATCH', `/Users/${id}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
        });
        assert.equal(off.status, 200, JSON.stringify(off.body));
        const group = await s.send('POST', '/Groups', { displayName: 'ops', members: [{ value: id }] });
        assert.equal(group.status, 201, JSON.stringify(group.body));
        const gid = group.body.id as string;
        const renamed = await s.send('PATCH', `/Groups/${gid}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'replace', value: { displayName: 'ops-eu' } }],
        });
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        assert.equal((await s.send('DELETE', `/Groups/${gid}`)).status, 204);
        assert.equal((await s.send('DELETE', `/Users/${id}`)).status, 204);

        const got = await deliver(store, r, 7);
        assert.equal(got.length, 7, got.map((m) => m.payload.type).join(', '));
        const logs = s.h.logs as ReadonlyArray<Record<string, unknown>>;
        const created = delivered(got, logs, 'scim.user_created');
        assert.deepEqual(created, {
          account: 'local:admin',
          user: id,
          userName: 'ada@example.com',
          active: true,
          ...(created.client === undefined ? {} : { client: created.client }),
        });
        assert.equal(delivered(got, logs, 'scim.user_updated').changed, 'active');
        assert.equal(delivered(got, logs, 'scim.user_deactivated').handed_over, 0);
        assert.equal(delivered(got, logs, 'scim.group_created').members, 1);
        const updated = delivered(got, logs, 'scim.group_updated');
        assert.equal(updated.owner, 'group:ops-eu');
        assert.equal(updated.renamed_from, 'group:ops');
        assert.equal(delivered(got, logs, 'scim.group_deleted').group, gid);
        assert.equal(delivered(got, logs, 'scim.user_deleted').user, id);
        // One message id each, and never the scim token in a body.
        assert.equal(new Set(got.map((m) => m.id)).size, 7);
        for (const m of got) assert.ok(!m.body.includes(s.token), m.payload.type);
      } finally {
        await r.close();
        await s.close();
      }
    });

    test('a deactivation that hands devices over is delivered with the count, after each device.owner_changed is noted', async () => {
      const store = await open();
      const s = await scimClient(store, { config: { scimHandOverTo: 'group:it-pool' } });
      const r = await subscribed(store, ['scim.user_deactivated', 'device.owner_changed']);
      try {
        const id = (await s.send('POST', '/Users', { userName: 'leaver@example.com' })).body.id as string;
        const subject = 'oidc:leaver';
        await store.recordSignIn({ subject, display: 'Leaver', lastSignInAt: s.h.clock.now(), admin: false });
        assert.ok(await store.linkScimUser(id, subject));
        await enrollDevice(s.h, subject, 'laptop');
        const off = await s.send('PATCH', `/Users/${id}`, {
          Operations: [{ op: 'replace', value: { active: false } }],
        });
        assert.equal(off.status, 200);
        const got = await deliver(store, r, 2);
        assert.deepEqual(got.map((m) => m.payload.type).sort(), ['device.owner_changed', 'scim.user_deactivated']);
        const deactivated = delivered(got, s.h.logs as ReadonlyArray<Record<string, unknown>>, 'scim.user_deactivated');
        assert.equal(deactivated.handed_over, 1);
        assert.equal(deactivated.to, 'group:it-pool');
        assert.equal(deactivated.subject, subject);
      } finally {
        await r.close();
        await s.close();
      }
    });

    test('a request that fails changes nothing and delivers nothing', async () => {
      const store = await open();
      const s = await scimClient(store);
      try {
        const id = (await s.send('POST', '/Users', { userName: 'bob@example.com' })).body.id as string;
        const gid = (await s.send('POST', '/Groups', { displayName: 'eng' })).body.id as string;
        const r = await subscribed(store, ['*']);
        try {
          // The first operation alone would deactivate; the second's unknown path fails them both.
          const bad = await s.send('PATCH', `/Users/${id}`, {
            schemas: [PATCH_OP],
            Operations: [
              { op: 'replace', path: 'active', value: false },
              { op: 'replace', path: 'noSuchAttribute', value: 'x' },
            ],
          });
          assertScimError(bad, 400, 'invalidPath');
          const still = await store.scimUser(id);
          assert.equal(still?.active, true);
          assert.equal(still?.version, 1);
          const control = await s.send('PATCH', `/Users/${id}`, {
            Operations: [{ op: 'replace', value: { active: false } }],
          });
          assert.equal(control.status, 200, 'the control: this PATCH goes through');
          const taken = await s.send('POST', '/Users', { userName: 'BOB@example.com' });
          assertScimError(taken, 409, 'uniqueness');
          const stranger = await s.send('PATCH', `/Groups/${gid}`, {
            Operations: [{ op: 'add', path: 'members', value: [{ value: 'no-such-user' }] }],
          });
          assertScimError(stranger, 400, 'invalidValue');
          const groupTaken = await s.send('POST', '/Groups', { displayName: 'eng' });
          assertScimError(groupTaken, 409, 'uniqueness');

          // Only the control's two messages were owed; the failures changed nothing.
          assert.equal((await store.outboxDepth()).pending, 2);
          assert.equal((await store.scimGroup(gid, true))?.members?.length, 0);
          const got = await deliver(store, r, 2);
          await new Promise((resolve) => setTimeout(resolve, 100));
          assert.deepEqual(got.map((m) => m.payload.type).sort(), ['scim.user_deactivated', 'scim.user_updated']);
          assert.equal(r.hits, 2);
        } finally {
          await r.close();
        }
      } finally {
        await s.close();
      }
    });
  });
});
