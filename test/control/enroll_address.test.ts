// The address a device enrolled from (docs/contract.md section 22: pending devices show their facts
// and the address they enrolled from), on both stores: kept at enrollment as the server saw it
// (IPv4, IPv6, an IPv4 client on a dual-stack socket as IPv4), answered `status` pending or active,
// and shown on the device page and in the API, the list's rows included; none for a device
// enrolled before it was kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import type { Store } from '../../src/store/store.ts';
import { onBothStores } from '../support/both_stores.ts';
import { harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const ADMIN = { subject: 'local:admin', admin: true };

/** Enrolls through the control API from `address`, with a token that needs approval or not. */
async function enrollFrom(h: Harness, address: string, approval: 'required' | 'automatic') {
  const token = randomToken(32);
  await h.store.createEnrollToken({
    hash: secretHash(token),
    owner: 'oidc:ann',
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + 600_000,
    approval,
  });
  const res = await h.controlApp.request(
    '/v1/enroll',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: `from ${address}`, facts: { os: 'linux', hostname: 'gate-1' } }),
    },
    { incoming: { socket: { remoteAddress: address } } },
  );
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string; status: string };
}

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  describe(`the address a device enrolled from: ${name}`, { skip }, () => {
    test('kept as the server saw it; the answer says pending; the page, the API and the list show it', async () => {
      const h = await harness({ store: await open() });
      try {
        const v4 = await enrollFrom(h, '203.0.113.9', 'required');
        const v6 = await enrollFrom(h, '2001:db8::7', 'required');
        const mapped = await enrollFrom(h, '::ffff:192.0.2.5', 'automatic');
        assert.deepEqual([v4.status, v6.status, mapped.status], ['pending', 'pending', 'active']);
        for (const [d, address] of [
          [v4, '203.0.113.9'],
          [v6, '2001:db8::7'],
          [mapped, '192.0.2.5'],
        ] as const)
          assert.equal((await h.store.deviceVisibleTo(ADMIN, d.device))?.enrolledFrom, address);
        const listed = await h.store.devicesVisibleTo(ADMIN, { limit: 10 }, { status: 'pending', staleBefore: 0 });
        assert.deepEqual(
          listed.items.map((d) => [d.id, d.enrolledFrom, d.facts.hostname]),
          [
            [v6.device, '2001:db8::7', 'gate-1'],
            [v4.device, '203.0.113.9', 'gate-1'],
          ],
        );
        const cookie = h.signIn(ACCOUNTS.admin).cookie;
        const page = await (await h.request(`/devices/${v6.device}`, { headers: { cookie } })).text();
        assert.match(page, /<dt>Enrolled from<\/dt>\s*<dd><code>2001:db8::7<\/code><\/dd>/);
        assert.match(page, /gate-1/, 'and its facts');
      } finally {
        await h.close();
      }
    });

    test('a device enrolled before the address was kept has none, and the page says nothing of it', async () => {
      const h = await harness({ store: await open() });
      try {
        await h.store.createEnrollToken({
          hash: 'tok-old',
          owner: 'oidc:ann',
          createdBy: 'local:admin',
          createdAt: h.clock.now(),
          expiresAt: h.clock.now() + 600_000,
        });
        const old = await h.store.enrollDevice({
          tokenHash: 'tok-old',
          now: h.clock.now(),
          deviceId: 'd_old',
          name: 'old',
          credentialHash: 'cred-old',
        });
        assert.equal(old?.enrolledFrom, null);
        const cookie = h.signIn(ACCOUNTS.admin).cookie;
        const page = await (await h.request('/devices/d_old', { headers: { cookie } })).text();
        assert.doesNotMatch(page, /Enrolled from/);
      } finally {
        await h.close();
      }
    });
  });
}

await onBothStores(suite);
