// Groups across instances (docs/contract.md sections 18 and 19): two `paddock serve` processes on
// one PostgreSQL database. A member's token reaches its group's devices through either instance,
// and a change of its groups (as a sign-in or SCIM writes it, through the store) reaches both at
// their next request: nothing about groups is kept in an instance.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { newAccessToken } from '../../src/domain/access_tokens.ts';
import type { Store } from '../../src/store/store.ts';
import { type TwoInstances, twoInstances } from '../support/two_instances.ts';
import { postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const available = await postgresAvailable();
const MEMBER = 'oidc:carol';

if (!available) {
  test(`groups across two instances (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  describe('groups across two instances on one database', () => {
    let store: Store;
    let instances: TwoInstances['instances'] = [];
    let stop: () => Promise<void> = async () => undefined;

    before(async () => {
      ({ store, instances, stop } = await twoInstances('groups', 'groups across instances'));
    });

    after(() => stop());

    async function enroll(base: string, owner: string): Promise<string> {
      const token = randomToken(32);
      await store.createEnrollToken({
        hash: secretHash(token),
        owner,
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
      return ((await res.json()) as { device: string }).device;
    }

    test("a change of a member's groups reaches its token on both instances at the next request", async () => {
      const [a, b] = instances;
      assert.ok(a && b);
      const ops = await enroll(a.base, 'group:ops');
      const dev = await enroll(b.base, 'group:dev');
      const now = Date.now();
      await store.recordSignIn({ subject: MEMBER, display: 'Carol', lastSignInAt: now, admin: false });
      await store.setAccountGroups(MEMBER, ['ops']);
      const token = newAccessToken();
      await store.createAccessToken({
        hash: secretHash(token),
        subject: MEMBER,
        admin: false,
        scope: 'read',
        name: 'across instances',
        createdAt: now,
        expiresAt: now + 3_600_000,
      });
      const seen = async (base: string) => {
        const res = await fetch(`${base}/api/v1/devices`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        return ((await res.json()) as { items: Array<{ id: string }> }).items.map((d) => d.id);
      };
      const status = async (base: string, id: string) =>
        (await fetch(`${base}/api/v1/devices/${id}`, { headers: { authorization: `Bearer ${token}` } })).status;
      for (const i of [a, b]) {
        assert.deepEqual(await seen(i.base), [ops]);
        assert.equal(await status(i.base, dev), 404);
      }
      // As SCIM or a sign-in on either instance would write it.
      await store.setAccountGroups(MEMBER, ['dev']);
      for (const i of [a, b]) {
        assert.deepEqual(await seen(i.base), [dev]);
        assert.equal(await status(i.base, ops), 404);
        assert.equal(await status(i.base, dev), 200);
      }
      await store.setAccountGroups(MEMBER, []);
      for (const i of [b, a]) assert.deepEqual(await seen(i.base), []);
    });
  });
}
