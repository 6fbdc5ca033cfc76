// Issue 42's second finding against section 15 (docs/contract.md): a collection's page showed a
// non-admin targets outside its current scope. A creator who lost admin still saw another account's
// device id, name, state and decline reason, and could cancel its request. Now every door (the
// console's page and cancel, the API's collection, targets, list and cancel) shows and acts on the
// targets of the viewer's own devices only, as the device list does; an admin's view is unchanged.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCollection } from '../../src/actions/collections.ts';
import type { Store } from '../../src/store/store.ts';
import { apiToken } from '../support/api_table.ts';
import { form, harness, type Harness } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const USER = ACCOUNTS.user.subject;
const OTHER = ACCOUNTS.other.subject;
const ALL = { subject: 'local:auditor', admin: true };

async function device(h: Harness, owner: string, id: string) {
  await h.store.createEnrollToken({
    hash: `tok-${id}`,
    owner,
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + 3_600_000,
    labels: {},
  });
  assert.ok(
    await h.store.enrollDevice({
      tokenHash: `tok-${id}`,
      now: h.clock.now(),
      deviceId: id,
      name: `name-${id}`,
      credentialHash: `cred-${id}`,
    }),
  );
}

/**
 * The user, an admin then, asked its own u1 and u2 and the other account's o1 and o2; o1 declined
 * with a reason. Then the user lost admin: its session and token are a user's.
 */
async function world(h: Harness): Promise<string> {
  for (const [owner, id] of [
    [USER, 'u1'],
    [USER, 'u2'],
    [OTHER, 'o1-secret'],
    [OTHER, 'o2-secret'],
  ] as const)
    await device(h, owner, id);
  const made = await createCollection(
    h as never,
    { subject: USER, admin: true, client: null },
    { privacy: 'redacted', reason: 'as an admin', scope: { devices: ['u1', 'u2', 'o1-secret', 'o2-secret'] } },
  );
  assert.ok(made.ok && made.collection.counts.pending === 4);
  const [r] = await h.store.takeRequests('o1-secret', h.clock.now(), 5);
  assert.ok(r);
  assert.equal(
    (await h.store.declineRequest('o1-secret', r.id, 'the other team says no', h.clock.now())).outcome,
    'declined',
  );
  return made.collection.id;
}

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  describe(`finding: a collection's targets are shown in the viewer's current scope (${name})`, { skip }, () => {
    test('finding: the console page of a creator who lost admin shows its own targets only, counted as such', async () => {
      const h = await harness({ store: await open() });
      try {
        const id = await world(h);
        const { cookie } = h.signIn(ACCOUNTS.user);
        const res = await h.request(`/collections/${id}`, { headers: { cookie } });
        assert.equal(res.status, 200);
        const body = await res.text();
        assert.ok(body.includes('name-u1') && body.includes('name-u2'), 'its own targets');
        for (const hidden of ['o1-secret', 'o2-secret', 'the other team says no'])
          assert.ok(!body.includes(hidden), `${hidden} is not shown`);
        assert.match(body, /Targets 1–2 of 2,\s+newest first\./);
        assert.match(body, /pending<\/a>\s*<\/th>\s*<td>2<\/td>/, 'counted in its scope');
        assert.match(body, /<th scope="row">\s*declined\s*<\/th>\s*<td>0<\/td>/);
        const declined = await h.request(`/collections/${id}?state=declined`, { headers: { cookie } });
        assert.ok(!(await declined.text()).includes('o1-secret'));

        // An admin still sees every target.
        const admin = h.signIn(ACCOUNTS.admin);
        const all = await (await h.request(`/collections/${id}`, { headers: { cookie: admin.cookie } })).text();
        assert.ok(all.includes('o1-secret') && all.includes('the other team says no'));
      } finally {
        await h.close();
      }
    });

    test('finding: its cancel, in the console and the API, cancels only its own devices’ requests', async () => {
      const h = await harness({ store: await open() });
      try {
        const id = await world(h);
        const { cookie, csrf } = h.signIn(ACCOUNTS.user);
        const res = await h.request(`/collections/${id}/cancel`, form({ csrf }, cookie));
        assert.equal(res.status, 303);
        const targets = async () =>
          Object.fromEntries(
            (await h.store.collectionTargets(ALL, id, { limit: 10 })).items.map((t) => [t.device, t.state]),
          );
        assert.deepEqual(await targets(), {
          u1: 'cancelled',
          u2: 'cancelled',
          'o1-secret': 'declined',
          'o2-secret': 'pending',
        });
        const c = await h.store.collectionVisibleTo(ALL, id);
        assert.equal(c?.closedAt, null, 'still open: the other account’s request was not the user’s to cancel');
        assert.equal(c?.cancelledAt, null);
        await h.flushAudit();
        assert.equal(h.logs.find((l) => l.event === 'collection.cancelled')?.cancelled, 2);

        // The API's cancel, again: nothing of the other account's moves.
        const token = await apiToken(h, 'user');
        const api = await h.request(`/api/v1/collections/${id}/cancel`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(api.status, 200);
        assert.equal(((await targets()) as Record<string, string>)['o2-secret'], 'pending');
        const json = (await api.json()) as { counts: Record<string, number> };
        assert.deepEqual([json.counts.cancelled, json.counts.pending, json.counts.declined], [2, 0, 0]);
      } finally {
        await h.close();
      }
    });

    test('finding: the API shows a creator who lost admin its own targets and counts only', async () => {
      const h = await harness({ store: await open() });
      try {
        const id = await world(h);
        const token = await apiToken(h, 'user');
        const get = async (path: string) => {
          const res = await h.request(path, { headers: { authorization: `Bearer ${token}` } });
          assert.equal(res.status, 200, path);
          return (await res.json()) as Record<string, unknown>;
        };
        const targets = (await get(`/api/v1/collections/${id}/targets`)).items as Array<{ device: string }>;
        assert.deepEqual(targets.map((t) => t.device).sort(), ['u1', 'u2']);
        const declined = (await get(`/api/v1/collections/${id}/targets?state=declined`)).items as unknown[];
        assert.deepEqual(declined, []);
        const one = (await get(`/api/v1/collections/${id}`)) as { counts: Record<string, number> };
        assert.deepEqual([one.counts.pending, one.counts.declined], [2, 0]);
        const list = (await get('/api/v1/collections')).items as Array<{ counts: Record<string, number> }>;
        assert.deepEqual(
          list.map((c) => [c.counts.pending, c.counts.declined]),
          [[2, 0]],
        );
      } finally {
        await h.close();
      }
    });
  });
}

await onBothStores(suite);
