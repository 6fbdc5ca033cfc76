// Collection requests across instances (docs/contract.md section 15): two `paddock serve` processes
// on one PostgreSQL database. A device holds its request on one; a collection created through the
// other reaches it by PostgreSQL's LISTEN/NOTIFY within a second, and its answer is seen by both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { newAccessToken } from '../../src/domain/access_tokens.ts';
import type { Store } from '../../src/store/store.ts';
import { type TwoInstances, twoInstances } from '../support/two_instances.ts';
import { postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const available = await postgresAvailable();
const admin = { subject: 'local:admin', admin: true, client: null };

if (!available) {
  test(`collection requests across two instances (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  describe('collection requests across two instances on one database', () => {
    let store: Store;
    let instances: TwoInstances['instances'] = [];
    let stop: () => Promise<void> = async () => undefined;

    before(async () => {
      ({ store, instances, stop } = await twoInstances('collections', 'collections across instances'));
    });

    after(() => stop());

    async function enroll(base: string): Promise<{ device: string; credential: string }> {
      const token = randomToken(32);
      await store.createEnrollToken({
        hash: secretHash(token),
        owner: 'oidc:line-3',
        createdBy: 'local:admin',
        createdAt: Date.now(),
        expiresAt: Date.now() + 600_000,
      });
      const res = await fetch(`${base}/v1/enroll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      assert.equal(res.status, 201);
      return (await res.json()) as { device: string; credential: string };
    }

    test('held on b, created through a: delivered within a second; answered through a, seen by b', async () => {
      const [a, b] = instances;
      assert.ok(a && b);
      const devices = await Promise.all([enroll(a.base), enroll(b.base), enroll(b.base)]);
      // Each holds its request on b.
      const held = devices.map((d) =>
        fetch(`${b.base}/v1/requests?wait=30`, { headers: { authorization: `Bearer ${d.credential}` } }).then(
          async (r) => ({
            status: r.status,
            at: Date.now(),
            body: (await r.json()) as { requests: Array<{ id: string }> },
          }),
        ),
      );
      await new Promise((r) => setTimeout(r, 500));
      // Created through a's JSON API, by an administrator's token.
      const token = newAccessToken();
      const now = Date.now();
      await store.recordSignIn({ subject: 'local:admin', display: 'admin', lastSignInAt: now, admin: true });
      await store.createAccessToken({
        hash: secretHash(token),
        subject: 'local:admin',
        admin: true,
        scope: 'write',
        name: 'across instances',
        createdAt: now,
        expiresAt: now + 3_600_000,
      });
      const created = Date.now();
      const res = await fetch(`${a.base}/api/v1/collections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ devices: devices.map((d) => d.device), privacy: 'full', reason: 'across instances' }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      const collection = (await res.json()) as { id: string };
      const answers = await Promise.all(held);
      for (const a of answers) {
        assert.equal(a.status, 200);
        assert.equal(a.body.requests.length, 1);
        assert.ok(a.at - created < 1_000, `delivered ${a.at - created} ms after it was created`);
      }
      // Answered through a: a run for the first, a decline for the second.
      const [first, second] = devices;
      assert.ok(first && second);
      const [r1, r2] = answers.map((x) => x.body.requests[0]?.id ?? '');
      const up = await fetch(`${a.base}/v1/runs/across-1`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${first.credential}`, 'x-privacy-level': 'full', 'x-collection': r1 ?? '' },
        body: 'the run',
      });
      assert.equal(up.status, 201);
      const no = await fetch(`${a.base}/v1/requests/${r2}/decline`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.credential}`, 'content-type': 'application/json' },
        body: '{"reason": "not now"}',
      });
      assert.equal(no.status, 204);
      // b sees them closed: the same upload with that request is the idempotent retry, another is 409.
      const retry = await fetch(`${b.base}/v1/runs/across-1`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${first.credential}`, 'x-privacy-level': 'full', 'x-collection': r1 ?? '' },
        body: 'the run',
      });
      assert.equal(retry.status, 200);
      const late = await fetch(`${b.base}/v1/requests/${r2}/decline`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.credential}`, 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(late.status, 409);
      const c = await store.collectionVisibleTo(admin, collection.id);
      assert.deepEqual([c?.counts.fulfilled, c?.counts.declined, c?.counts.delivered], [1, 1, 1]);
    });
  });
}
